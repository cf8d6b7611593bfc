/**
 * The quirk mode's streaming: a rendered reply as server-sent events, as OpenAI streams it
 * (platform.openai.com/docs/api-reference/chat-streaming): the content in small pieces, then each
 * call's id and name, then its arguments in small pieces (whole, for a server that sends each call
 * in one chunk, as Ollama does: ollama/ollama#11633), the finish reason, and the usage in a last
 * chunk without choices when `stream_options` asks. Paced, paused or cut as the options say.
 */
import type { ServerResponse } from 'node:http';
import type { SeenRequest } from '../model-servers/brain.ts';
import type { Rendered } from '../model-servers/quirk-rendering.ts';
import { chunkEvent } from './server.ts';

/** How a streamed reply goes out: its pace, a pause, a cut. */
export interface StreamPacing {
  /** A streamed reply waits this long between two chunks (a model writing at its pace). */
  streamChunkDelayMs?: number;
  /** Told each streamed chunk as it is sent (its place in the stream, from 0), for the benches. */
  onStreamChunk?(index: number): void;
  /** A streamed reply stops after this many chunks until `until` resolves (a test's fact, not a time). */
  streamPause?: { afterChunks: number; until: () => Promise<unknown> };
}

type RenderedMessage = Extract<Rendered, { message: unknown }>;

/** The chunks `streamRendered` sends for a reply (as it cuts content and arguments: 7 characters each). */
export function chunkCount(rendered: RenderedMessage): number {
  const message = rendered.message as {
    content?: string | null;
    tool_calls?: { function: { arguments: string } }[] | null;
  };
  const calls = (message.tool_calls ?? []).reduce(
    (sum, call) => sum + 1 + Math.ceil(call.function.arguments.length / 7),
    0,
  );
  return 2 + Math.ceil((message.content ?? '').length / 7) + calls;
}

export async function streamRendered(
  response: ServerResponse,
  rendered: RenderedMessage,
  request: SeenRequest,
  callsWhole: boolean,
  options: StreamPacing & { cutAfter?: number },
): Promise<void> {
  let sent = 0;
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (payload: object) => response.write(chunkEvent('chatcmpl-stream', String(request.model), payload));
  const chunk = async (delta: Record<string, unknown>, finish: string | null = null) => {
    if (options.streamChunkDelayMs) await new Promise((resolve) => setTimeout(resolve, options.streamChunkDelayMs));
    if (++sent === options.streamPause?.afterChunks) await options.streamPause.until();
    if (response.destroyed) return;
    if (sent - 1 === options.cutAfter) {
      response.destroy();
      return;
    }
    options.onStreamChunk?.(sent - 1);
    send({ choices: [{ index: 0, delta, finish_reason: finish }] });
  };
  await chunk({ role: 'assistant', content: '' });
  const message = rendered.message as {
    content?: string | null;
    tool_calls?: { id: string; function: { name: string; arguments: string }; extra_content?: unknown }[] | null;
  };
  // Text comes as a model writes it: a few characters at a time (calls written in it too).
  for (let at = 0; at < (message.content ?? '').length; at += 7)
    await chunk({ content: message.content!.slice(at, at + 7) });
  for (const [index, toolCall] of (message.tool_calls ?? []).entries()) {
    const head = { index, id: toolCall.id, type: 'function', extra_content: toolCall.extra_content };
    if (callsWhole) {
      await chunk({ tool_calls: [{ ...head, function: toolCall.function }] });
      continue;
    }
    await chunk({ tool_calls: [{ ...head, function: { name: toolCall.function.name, arguments: '' } }] });
    const args = toolCall.function.arguments;
    for (let at = 0; at < args.length; at += 7)
      await chunk({ tool_calls: [{ index, function: { arguments: args.slice(at, at + 7) } }] });
  }
  await chunk({}, rendered.finishReason);
  if ((request.stream_options as { include_usage?: boolean } | undefined)?.include_usage)
    send({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  response.end('data: [DONE]\n\n');
}
