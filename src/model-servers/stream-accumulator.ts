/**
 * A streamed chat completion put back together: the chunks' deltas gathered into the one reply a
 * request without `stream` would have got, so that it is read the same way (wire-reply.ts).
 *
 * What servers do differently, and what is taken: OpenAI sends each call's id and name once, then
 * its arguments in pieces, keyed by `index` (platform.openai.com/docs/api-reference/chat-streaming);
 * Ollama sends each call whole in one chunk (ollama/ollama#11633); Gemini may leave `index` out
 * (springfall2008/batpred#4904), so a piece without one belongs to the call its id names, or else to
 * the last call; usage comes in a last chunk without choices when `stream_options.include_usage` is
 * asked for; reasoning comes in `reasoning_content` or `reasoning` deltas.
 */
import { reasoningFields } from './reasoning.ts';
import { type CallProgress, TextCallProgress } from './text-call-progress.ts';

export type { CallProgress } from './text-call-progress.ts';

interface CallInProgress {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  extra_content?: Record<string, unknown>;
}

export class StreamAccumulator {
  private content = '';
  private readonly textCalls = new TextCallProgress();
  private readonly reasoning: Record<string, string> = {};
  private readonly calls: CallInProgress[] = [];
  private finishReason: string | null = null;
  private usage: unknown = null;
  /** llama.cpp's timings, in the last chunk (how much of the prompt it took from its cache). */
  private timings: unknown = null;
  private model = '';
  /** Chunks taken: none means the server did not stream at all. */
  chunks = 0;

  /** Takes one chunk; returns the calls whose arguments it added to (calls written in the text too). */
  add(chunk: unknown): CallProgress[] {
    this.chunks += 1;
    const { choices, usage, timings, model } = (chunk ?? {}) as {
      choices?: unknown;
      usage?: unknown;
      timings?: unknown;
      model?: unknown;
    };
    if (usage) this.usage = usage;
    if (timings) this.timings = timings;
    if (typeof model === 'string' && model !== '') this.model = model;
    const choice = Array.isArray(choices)
      ? (choices[0] as { delta?: Record<string, unknown>; finish_reason?: unknown } | undefined)
      : undefined;
    if (!choice) return [];
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    const grown: CallProgress[] = [];
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.content += delta.content;
      // Calls written in the text (the text protocol), as long as the reply has no calls of its own.
      if (this.calls.length === 0) grown.push(...this.textCalls.update(this.content));
    }
    for (const field of reasoningFields)
      if (typeof delta[field] === 'string') this.reasoning[field] = (this.reasoning[field] ?? '') + delta[field];
    for (const piece of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      const index = this.placeOf(piece as ToolCallPiece);
      const call = this.calls[index]!;
      const { id, function: fn, extra_content: extra } = piece as ToolCallPiece;
      if (typeof id === 'string' && id !== '') call.id = id;
      if (typeof fn?.name === 'string' && call.function.name === '') call.function.name = fn.name;
      if (typeof fn?.arguments === 'string' && fn.arguments !== '') {
        call.function.arguments += fn.arguments;
        grown.push({ index, name: call.function.name, arguments: call.function.arguments });
      }
      if (typeof extra === 'object' && extra !== null) call.extra_content = { ...call.extra_content, ...extra };
    }
    return grown;
  }

  /**
   * The reply as a chat completion (`choices[0].message`, `finish_reason`, `usage`, `model`). A call
   * that never got a name is dropped: a piece placed at `index: 127` leaves 127 places before it
   * that no piece named, which would each be answered "Unknown tool" and fill the tool post.
   */
  completion(): unknown {
    const calls = this.calls.filter((call) => call.function.name !== '');
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: this.content === '' && calls.length > 0 ? null : this.content,
      ...this.reasoning,
    };
    if (calls.length > 0) message.tool_calls = calls;
    return {
      object: 'chat.completion',
      model: this.model,
      choices: [{ index: 0, message, finish_reason: this.finishReason }],
      usage: this.usage,
      ...(this.timings ? { timings: this.timings } : {}),
    };
  }

  private placeOf(piece: ToolCallPiece): number {
    if (typeof piece.index === 'number' && piece.index >= 0 && piece.index < 128) {
      while (this.calls.length <= piece.index) this.calls.push(blankCall());
      return piece.index;
    }
    const byId = typeof piece.id === 'string' ? this.calls.findIndex((call) => call.id === piece.id) : -1;
    if (byId !== -1) return byId;
    if (this.calls.length === 0 || (typeof piece.id === 'string' && piece.id !== '')) this.calls.push(blankCall());
    return this.calls.length - 1;
  }
}

interface ToolCallPiece {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
  extra_content?: unknown;
}

const blankCall = (): CallInProgress => ({ id: '', type: 'function', function: { name: '', arguments: '' } });
