/**
 * Which call a server's request came from, over streamable HTTP. There a server sends a request made
 * while it handles a call (elicitation, say) on the SSE stream that answers that call's POST (the
 * spec: "The server MAY send JSON-RPC requests and notifications before sending the JSON-RPC
 * response. These messages SHOULD relate to the originating client request."
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#sending-messages-to-the-server).
 * The SDK's client does not say on which stream a request came (its handlers get the request's id
 * only: Protocol._onrequest in @modelcontextprotocol/sdk), so the transport's `fetch` is wrapped:
 * a call's POST is sent within the call's context (AsyncLocalStorage), and each request read on its
 * stream is noted against that call before the SDK reads it. Over stdio, and on the standalone GET
 * stream, nothing ties a request to a call.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createParser } from 'eventsource-parser';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallInFlight } from './elicitation.ts';

export class CallStreams {
  private readonly current = new AsyncLocalStorage<CallInFlight>();
  /** A server request's id → the call on whose stream it came. */
  private readonly asked = new Map<string | number, CallInFlight>();

  /** Runs `send` (the call's request) so that what its stream brings is tied to `call`. */
  within<T>(call: CallInFlight, send: () => Promise<T>): Promise<T> {
    return this.current.run(call, send).finally(() => {
      for (const [id, each] of this.asked) if (each === call) this.asked.delete(id);
    });
  }

  /** The call whose stream brought the server's request `id`, if one did. */
  callOf(id: string | number): CallInFlight | undefined {
    return this.asked.get(id);
  }

  /** The `fetch` for the transport: a call's POST answered with an SSE stream has that stream read. */
  readonly fetch: FetchLike = async (url, init) => {
    const call = this.current.getStore();
    const response = await fetch(url, init);
    const type = response.headers.get('content-type') ?? '';
    if (!call || !response.ok || !response.body || !type.startsWith('text/event-stream') || !isCall(init?.body))
      return response;
    const body = response.body.pipeThrough(this.requestsOn(call));
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  /** Passes the stream on unchanged, noting each server request in it against `call` first. */
  private requestsOn(call: CallInFlight): TransformStream<Uint8Array, Uint8Array> {
    const decoder = new TextDecoder();
    const parser = createParser({
      onEvent: ({ data }) => {
        const id = requestId(data);
        if (id !== undefined) this.asked.set(id, call);
      },
    });
    return new TransformStream({
      transform(chunk, controller) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        controller.enqueue(chunk);
      },
    });
  }
}

/** Whether a POST's body is a tool's call (`tools/call`). */
function isCall(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    return (JSON.parse(body) as { method?: unknown }).method === 'tools/call';
  } catch {
    return false;
  }
}

/** The id of a JSON-RPC request (it has a method and an id); undefined for anything else. */
function requestId(data: string): string | number | undefined {
  try {
    const message = JSON.parse(data) as { method?: unknown; id?: unknown };
    const { id } = message;
    return typeof message.method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : undefined;
  } catch {
    return undefined;
  }
}
