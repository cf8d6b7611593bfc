/**
 * What the fake model means to do, before its server renders it: a tool call (or several), plain
 * text, nothing, or a call it writes so badly that the server cannot parse it. Tests script the
 * intents; `followInstructions` is a model that does what the last user message tells it, for the
 * doctor's probes ("Call ping with {"n": 1}").
 */

export interface IntendedCall {
  name: string;
  args: Record<string, unknown>;
}

export type Intent =
  | { calls: IntendedCall[] }
  | { say: string }
  | { empty: true }
  /** A call written so that the server's parser fails (Groq's tool_use_failed): the raw text. */
  | { broken: string };

/** The request as a fake model sees it. */
export interface SeenRequest {
  messages: { role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
  tool_choice?: unknown;
  stream?: boolean;
  [key: string]: unknown;
}

export const call = (name: string, args: Record<string, unknown> = {}): Intent => ({ calls: [{ name, args }] });
export const answer = (text: string, toolsUsed: string[] = []): Intent =>
  call('final_answer', { answer: text, tools_used: toolsUsed });

/** The tools a request offers, natively or in a text-protocol prompt's `<tools>` block. */
export function offeredTools(request: SeenRequest): string[] {
  if (request.tools) return request.tools.map((tool) => tool.function.name);
  const system = request.messages.find((message) => message.role === 'system');
  const block = /<tools>\n([\s\S]*?)\n<\/tools>/.exec(typeof system?.content === 'string' ? system.content : '');
  return (block?.[1] ?? '').split('\n').flatMap((line) => {
    try {
      return [(JSON.parse(line) as { name: string }).name];
    } catch {
      return [];
    }
  });
}

/** The text of the last user message (parts joined). */
export function lastUserText(request: SeenRequest): string {
  const last = request.messages.findLast((message) => message.role === 'user');
  if (typeof last?.content === 'string') return last.content;
  if (Array.isArray(last?.content))
    return (last.content as { type: string; text?: string }[])
      .filter((part) => part.type === 'text')
      .map((part) => part.text ?? '')
      .join(' ');
  return '';
}

/**
 * Does what the last user message says: each `Call NAME with {json}` is a call (in order); a named
 * tool choice is obeyed when no instruction names it, and a "required" one when no instruction
 * calls anything; with nothing to do, it answers "ok". After a tool result, it answers.
 */
export function followInstructions(request: SeenRequest): Intent {
  const offered = new Set(offeredTools(request));
  const last = request.messages.at(-1);
  const result =
    last?.role === 'tool' || (typeof last?.content === 'string' && last.content.startsWith('<tool_response>'));
  if (result && offered.has('final_answer')) return answer('done');
  const text = lastUserText(request);
  const calls: IntendedCall[] = [];
  for (const match of text.matchAll(/Call (\w+) with (\{[^}]*\})/g)) {
    if (offered.has(match[1]!)) calls.push({ name: match[1]!, args: JSON.parse(match[2]!) as Record<string, unknown> });
  }
  const named = (request.tool_choice as { function?: { name?: string } } | undefined)?.function?.name;
  if (named && !calls.some((intended) => intended.name === named))
    return named === 'final_answer' ? answer('ok') : call(named);
  if (calls.length > 0) return { calls };
  // A server that passes "required" on to the model holds it to a call (grammar-constrained
  // decoding): with no instruction to follow, it calls final_answer, or else the first tool offered.
  if (request.tool_choice === 'required' && offered.size > 0)
    return offered.has('final_answer') ? answer('ok') : call([...offered][0]!);
  if (/reply in plain text|describe/i.test(text)) return { say: 'A small red square.' };
  return offered.has('final_answer') ? answer('ok') : { say: 'ok' };
}
