/**
 * Streamed replies a hostile or broken model server sends, as the scripted model's `bodyPieces` or
 * raw bodies: server-sent events cut as OpenAI cuts them (platform.openai.com/docs/api-reference/
 * chat-streaming), then bent: without the blank lines between events (a buffering proxy), without
 * end, or stalled between two chunks.
 */
import type { ScriptedReply } from './fake-model.ts';
import { chunkEvent as streamChunk } from './fake-model/server.ts';

/** One `chat.completion.chunk` event holding this delta. */
export function chunkEvent(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return streamChunk('chatcmpl-hostile', 'scripted-model', {
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
}

/** The events of a `final_answer` call (its arguments in pieces of 16 characters), then `[DONE]`. */
export function finalAnswerEvents(answer: string, index = 0): string[] {
  const args = JSON.stringify({ answer, tools_used: [] });
  const pieces = Array.from({ length: Math.ceil(args.length / 16) }, (_, at) => args.slice(at * 16, at * 16 + 16));
  return [
    chunkEvent({ role: 'assistant', content: '' }),
    chunkEvent({
      tool_calls: [{ index, id: 'call_1', type: 'function', function: { name: 'final_answer', arguments: '' } }],
    }),
    ...pieces.map((piece) => chunkEvent({ tool_calls: [{ index, function: { arguments: piece } }] })),
    chunkEvent({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ];
}

/** Events sent whole, as one body. */
export function eventStream(events: readonly string[]): ScriptedReply {
  return { headers: { 'content-type': 'text/event-stream' }, body: events.join('') };
}

/** The same events with the blank line between them dropped: one line each, as a buffering proxy may send them. */
export function withoutBlankLines(events: readonly string[]): ScriptedReply {
  return eventStream(events.map((event) => event.replace(/\n\n$/, '\n')));
}
