/**
 * The bench mode, the agent-loop benches' model: it answers at once with the same three turns for
 * every contender: add(2,3) and multiply(4,5) in parallel, then add(5,20), then final_answer
 * carrying the last tool result. It checks and keeps nothing, so that it costs the least it can.
 */
import { chatCompletion, sendJson, startModelServer } from './server.ts';

export interface BenchModel {
  port: number;
  baseURL: string;
  close(): Promise<void>;
}

const usage = { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 };

export async function startBenchModel(): Promise<BenchModel> {
  let id = 0;
  const call = (name: string, args: unknown) => ({
    id: `call_${++id}`,
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  });
  /** The turn that follows the tool results the messages hold so far. */
  const turn = (messages: { role: string; content?: string }[]) => {
    const results = messages.filter((message) => message.role === 'tool');
    if (results.length === 0) return [call('add', { a: 2, b: 3 }), call('multiply', { a: 4, b: 5 })];
    if (results.length === 2) return [call('add', { a: 5, b: 20 })];
    const answer = String(results.at(-1)?.content ?? '');
    return [call('final_answer', { answer, tools_used: ['add', 'multiply'] })];
  };
  const server = await startModelServer(
    ({ response, body }) => {
      const toolCalls = turn((body as { messages: { role: string; content?: string }[] }).messages);
      const message = { role: 'assistant', content: null, tool_calls: toolCalls, refusal: null };
      const completion = { id: `chatcmpl-${id}`, model: 'bench-model', message, finishReason: 'tool_calls', usage };
      sendJson(response, 200, chatCompletion(completion));
    },
    { keepAliveTimeoutMs: 60_000 },
  );
  return { port: server.port, baseURL: server.baseURL, close: () => server.close('bench model') };
}
