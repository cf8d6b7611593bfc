/**
 * The benchmark's model: an OpenAI-compatible server, in its own process, that answers at once
 * with the same three turns for every contender: add(2,3) and multiply(4,5) in parallel, then
 * add(5,20), then final_answer carrying the last tool result. Prints its port, then serves.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let id = 0;
const usage = { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 };

function call(name: string, args: unknown) {
  return { id: `call_${++id}`, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

function reply(messages: { role: string; content?: string }[]) {
  const results = messages.filter((message) => message.role === 'tool');
  const toolCalls =
    results.length === 0
      ? [call('add', { a: 2, b: 3 }), call('multiply', { a: 4, b: 5 })]
      : results.length === 2
        ? [call('add', { a: 5, b: 20 })]
        : [call('final_answer', { answer: String(results.at(-1)?.content ?? ''), tools_used: ['add', 'multiply'] })];
  return {
    id: `chatcmpl-${id}`,
    object: 'chat.completion',
    created: 0,
    model: 'bench-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, tool_calls: toolCalls, refusal: null },
        finish_reason: 'tool_calls',
        logprobs: null,
      },
    ],
    usage,
  };
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      messages: { role: string; content?: string }[];
    };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(reply(body.messages)));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('disconnect', () => process.exit(0));
