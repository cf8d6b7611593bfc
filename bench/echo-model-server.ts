/**
 * The load bench's model: an OpenAI-compatible server, in its own process, that answers every chat
 * completion after `LATENCY_MS` (a real model's time to answer) with a `final_answer` call that
 * names the question it answers: the tag `[t12m2]` found in the last user message comes back as
 * "Answered t12m2.", so the bench can check that each thread got the answer to its own question.
 * Prints its port, then serves; sends `{ requests, maxInFlight }` over IPC when asked.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const latencyMs = Number(process.env.LATENCY_MS ?? 200);
let requests = 0;
let inFlight = 0;
let maxInFlight = 0;
let id = 0;

function completion(tag: string) {
  const answer = JSON.stringify({ answer: `Answered ${tag}.`, tools_used: [] });
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
    usage: { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320 },
  };
}

const server = createServer((request, response) => {
  requests += 1;
  inFlight += 1;
  maxInFlight = Math.max(maxInFlight, inFlight);
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      messages: { role: string; content?: string }[];
    };
    const lastUser = body.messages.findLast((message) => message.role === 'user');
    const tag = /\[(t\d+m\d+)\]/.exec(lastUser?.content ?? '')?.[1] ?? 'nothing';
    setTimeout(() => {
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
process.on('message', () => process.send!({ requests, maxInFlight }));
process.on('disconnect', () => process.exit(0));
