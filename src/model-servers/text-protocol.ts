/**
 * The text protocol, for servers that ignore the API's tool choice: the tools are described in the
 * system prompt, the model writes each call as a `<tool_call>` block (the Hermes / Qwen form, which
 * most open models were trained on: NousResearch Hermes-Function-Calling; the Qwen2.5 chat
 * template), and the results go back as `<tool_response>` blocks in user messages. Replies are
 * read with `findTextToolCalls`, like any call written as text.
 */
import type { ChatMessage, UserMessage } from '../agent/messages.ts';
import type { FunctionSpec, ToolChoice } from '../agent/model-client.ts';

/** What the system prompt gains: the tools, and the one form a call is written in. */
function textProtocolInstructions(tools: readonly FunctionSpec[]): string {
  const listed = tools.map((tool) =>
    JSON.stringify({
      name: tool.function.name,
      description: tool.function.description,
      parameters: tool.function.parameters,
    }),
  );
  return [
    '## Calling tools',
    'You call a tool by writing a <tool_call> block, and nothing else, in your reply:',
    '<tool_call>',
    '{"name": "<tool name>", "arguments": {<the arguments, as JSON>}}',
    '</tool_call>',
    'You may write several blocks in one reply. Each result comes back to you in a <tool_response> block.',
    'Every reply must be a tool call: to answer, call final_answer.',
    'The tools, with their arguments as JSON Schema:',
    '<tools>',
    ...listed,
    '</tools>',
  ].join('\n');
}

/** A message of the text transcript: a user's may keep its image parts. */
export type TranscriptMessage = { role: 'system' | 'assistant'; content: string } | UserMessage;

/** The conversation as plain messages: calls written as `<tool_call>` blocks, results as `<tool_response>`. */
export function toTextTranscript(
  messages: readonly ChatMessage[],
  tools: readonly FunctionSpec[],
  toolChoice: ToolChoice,
): TranscriptMessage[] {
  const names = new Map<string, string>();
  const out: TranscriptMessage[] = [];
  const instructions = textProtocolInstructions(tools);
  let instructed = false;
  for (const message of messages) {
    if (message.role === 'system') {
      out.push({ role: 'system', content: `${message.content}\n\n${instructions}` });
      instructed = true;
    } else if (message.role === 'assistant') {
      const calls = (message.tool_calls ?? []).map((call) => {
        names.set(call.id, call.function.name);
        return `<tool_call>\n${JSON.stringify({ name: call.function.name, arguments: parsedArguments(call.function.arguments) })}\n</tool_call>`;
      });
      out.push({ role: 'assistant', content: [message.content ?? '', ...calls].filter(Boolean).join('\n') });
    } else if (message.role === 'tool') {
      const block = `<tool_response>\n${JSON.stringify({ name: names.get(message.tool_call_id) ?? 'unknown', content: message.content })}\n</tool_response>`;
      const last = out.at(-1);
      // The results of one turn go back together, in one message.
      if (last?.role === 'user' && typeof last.content === 'string' && last.content.startsWith('<tool_response>'))
        last.content += `\n${block}`;
      else out.push({ role: 'user', content: block });
    } else out.push({ role: 'user', content: message.content });
  }
  if (!instructed) out.unshift({ role: 'system', content: instructions });
  if (typeof toolChoice === 'object')
    out.push({ role: 'user', content: `Reply now with a call of ${toolChoice.name}, and nothing else.` });
  return out;
}

/** Arguments as the model would write them: the object when they parse, the text otherwise. */
function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
