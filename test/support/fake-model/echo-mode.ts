/**
 * The echo mode, the load benches' model: it answers every chat completion after `latencyMs` (a
 * real model's time to answer) with a `final_answer` call that names the question it answers: the
 * tag `[t12m2]` found in the last user message comes back as "Answered t12m2.", so the bench can
 * check that each thread got the answer to its own question. Asked to stream (the bot's default),
 * its first chunk comes after `latencyMs` and the call's arguments follow in `streamPieces` pieces
 * 20 ms apart (50 tokens a second). It keeps counts, not requests: a load run sends thousands.
 */
import type { ServerResponse } from 'node:http';
import { chatCompletion, chunkEvent, sendJson, startModelServer } from './server.ts';

export interface EchoModelOptions {
  /** How long the model takes before its first token. */
  latencyMs: number;
  /** The pieces a streamed reply's arguments come in. */
  streamPieces: number;
}

/** What the echo model has seen. */
export interface EchoModelCounts {
  requests: number;
  /** The most requests answered at the same time. */
  maxInFlight: number;
  /** When each question's first model call arrived (wall clock, shared with the other processes). */
  arrivals: Record<string, number>;
}

export interface EchoModel {
  port: number;
  baseURL: string;
  counts(): EchoModelCounts;
  close(): Promise<void>;
}

const pieceGapMs = 20;
const usage = { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320 };

export async function startEchoModel(options: EchoModelOptions): Promise<EchoModel> {
  const counts: EchoModelCounts = { requests: 0, maxInFlight: 0, arrivals: {} };
  let inFlight = 0;
  let id = 0;
  const server = await startModelServer(
    ({ response, body }) => {
      counts.requests += 1;
      inFlight += 1;
      counts.maxInFlight = Math.max(counts.maxInFlight, inFlight);
      const request = body as { messages: { role: string; content?: string }[]; stream?: boolean };
      const lastUser = request.messages.findLast((message) => message.role === 'user');
      const tag = /\[(t\d+m\d+)\]/.exec(lastUser?.content ?? '')?.[1] ?? 'nothing';
      counts.arrivals[tag] ??= Date.now();
      const done = () => void (inFlight -= 1);
      setTimeout(() => {
        if (request.stream) return stream(response, `chatcmpl-${++id}`, `call_${id}`, tag, options.streamPieces, done);
        done();
        const answerId = ++id;
        const message = { role: 'assistant', content: null, refusal: null, tool_calls: [finalCall(answerId, tag)] };
        const completion = { id: `chatcmpl-${answerId}`, model: 'bench-model', message, finishReason: 'tool_calls' };
        sendJson(response, 200, chatCompletion({ ...completion, usage }));
      }, options.latencyMs);
    },
    { keepAliveTimeoutMs: 60_000 },
  );
  return { port: server.port, baseURL: server.baseURL, counts: () => counts, close: () => server.close('echo model') };
}

const argumentsFor = (tag: string) => JSON.stringify({ answer: `Answered ${tag}.`, tools_used: [] });

function finalCall(id: number, tag: string) {
  return { id: `call_${id}`, type: 'function', function: { name: 'final_answer', arguments: argumentsFor(tag) } };
}

/** The answer as server-sent chunks: the call's id and name, its arguments in pieces 20 ms apart, then usage. */
function stream(response: ServerResponse, id: string, callId: string, tag: string, pieces: number, done: () => void) {
  const answer = argumentsFor(tag);
  const size = Math.ceil(answer.length / pieces);
  const delta = (value: object, finish: string | null = null) =>
    chunkEvent(id, 'bench-model', { choices: [{ index: 0, delta: value, finish_reason: finish, logprobs: null }] });
  const all = [
    delta({
      role: 'assistant',
      tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: 'final_answer', arguments: '' } }],
    }),
    ...Array.from({ length: pieces }, (_, index) =>
      delta({ tool_calls: [{ index: 0, function: { arguments: answer.slice(index * size, (index + 1) * size) } }] }),
    ),
    delta({}, 'tool_calls'),
    chunkEvent(id, 'bench-model', { choices: [], usage }),
  ];
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const next = (index: number) => {
    if (index === all.length) {
      done();
      response.end('data: [DONE]\n\n');
      return;
    }
    response.write(all[index]);
    // The call's header and each piece of its arguments are tokens apart; the closing chunks are not.
    if (index >= 1 && index <= pieces) setTimeout(() => next(index + 1), pieceGapMs);
    else next(index + 1);
  };
  next(0);
}
