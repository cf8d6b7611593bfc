/**
 * The load bench's model: an OpenAI-compatible server, in its own process, that answers every chat
 * completion after `LATENCY_MS` (a real model's time to answer) with a `final_answer` call that
 * names the question it answers: the tag `[t12m2]` found in the last user message comes back as
 * "Answered t12m2.", so the bench can check that each thread got the answer to its own question.
 * Asked to stream (the bot's default), its first chunk comes after `LATENCY_MS` and the call's
 * arguments follow in `STREAM_PIECES` pieces 20 ms apart (50 tokens a second).
 * Prints its port, then serves; sends `{ requests, maxInFlight, arrivals }` over IPC when asked.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const latencyMs = Number(process.env.LATENCY_MS ?? 200);
const streamPieces = Number(process.env.STREAM_PIECES ?? 3);
const pieceGapMs = 20;
let requests = 0;
let inFlight = 0;
let maxInFlight = 0;
/** When each question's first model call arrived (wall clock, shared with the other processes). */
const arrivals: Record<string, number> = {};
let id = 0;

const argumentsFor = (tag: string) => JSON.stringify({ answer: `Answered ${tag}.`, tools_used: [] });
const usage = { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320 };

function completion(tag: string) {
  const answer = argumentsFor(tag);
  return {
    id: `chatcmpl-${++id}`,
    object: 'chat.completion',
    created: 0,
    model: 'bench-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [{ id: `call_${id}`, type: 'function', function: { name: 'final_answer', arguments: answer } }],
        },
        finish_reason: 'tool_calls',
        logprobs: null,
      },
    ],
    usage,
  };
}

/** The same completion as server-sent chunks: the call's id and name, its arguments in pieces, then usage. */
function chunks(tag: string): object[] {
  const answer = argumentsFor(tag);
  const size = Math.ceil(answer.length / streamPieces);
  const base = { id: `chatcmpl-${++id}`, object: 'chat.completion.chunk', created: 0, model: 'bench-model' };
  const delta = (value: object, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta: value, finish_reason: finish, logprobs: null }],
  });
  const pieces = Array.from({ length: streamPieces }, (_, index) => answer.slice(index * size, (index + 1) * size));
  return [
    delta({
      role: 'assistant',
      tool_calls: [{ index: 0, id: `call_${id}`, type: 'function', function: { name: 'final_answer', arguments: '' } }],
    }),
    ...pieces.map((piece) => delta({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
    delta({}, 'tool_calls'),
    { ...base, choices: [], usage },
  ];
}

/** Streams `tag`'s chunks, one piece every 20 ms after the first. */
function stream(response: ServerResponse, tag: string): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const all = chunks(tag);
  const next = (index: number) => {
    if (index === all.length) {
      inFlight -= 1;
      response.end('data: [DONE]\n\n');
      return;
    }
    response.write(`data: ${JSON.stringify(all[index])}\n\n`);
    // The call's header and each piece of its arguments are tokens apart; the closing chunks are not.
    if (index >= 1 && index <= streamPieces) setTimeout(() => next(index + 1), pieceGapMs);
    else next(index + 1);
  };
  next(0);
}

const server = createServer((request, response) => {
  requests += 1;
  inFlight += 1;
  maxInFlight = Math.max(maxInFlight, inFlight);
  const received: Buffer[] = [];
  request.on('data', (chunk: Buffer) => received.push(chunk));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(received).toString('utf8')) as {
      messages: { role: string; content?: string }[];
      stream?: boolean;
    };
    const lastUser = body.messages.findLast((message) => message.role === 'user');
    const tag = /\[(t\d+m\d+)\]/.exec(lastUser?.content ?? '')?.[1] ?? 'nothing';
    arrivals[tag] ??= Date.now();
    setTimeout(() => {
      if (body.stream) return stream(response, tag);
      inFlight -= 1;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(completion(tag)));
    }, latencyMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('message', () => process.send!({ requests, maxInFlight, arrivals }));
process.on('disconnect', () => process.exit(0));
