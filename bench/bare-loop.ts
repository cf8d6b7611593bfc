/**
 * The floor every bench compares against: the agent loop written by hand on the openai client,
 * with no validation, no time limits and no events. Shared so that every bench measures the same one.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import type { OpenAI } from 'openai';

/** The task every contender runs: the model server scripts the same turns for it. */
export const benchTask = {
  model: 'bench-model',
  systemPrompt: 'You are a calculator assistant.',
  question: 'What is (2+3) + (4*5)?',
} as const;

/** Starts the fake model's bench mode in a process of its own; resolves with its base URL and a way to stop it. */
export async function startModelProcess(): Promise<{ baseURL: string; stop(): void }> {
  const server = fork(new URL('../test/support/fake-model/own-process.ts', import.meta.url), ['bench'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const [portLine] = (await once(server.stdout!, 'data')) as [Buffer];
  return { baseURL: `http://127.0.0.1:${portLine.toString().trim()}/v1`, stop: () => void server.kill() };
}

const numbers = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
  additionalProperties: false,
};

export const bareTools = [
  { type: 'function' as const, function: { name: 'add', description: 'a + b', parameters: numbers, strict: true } },
  {
    type: 'function' as const,
    function: { name: 'multiply', description: 'a × b', parameters: numbers, strict: true },
  },
  {
    type: 'function' as const,
    function: {
      name: 'final_answer',
      description: 'Answer.',
      strict: true,
      parameters: {
        type: 'object',
        properties: { answer: { type: 'string' }, tools_used: { type: 'array', items: { type: 'string' } } },
        required: ['answer', 'tools_used'],
        additionalProperties: false,
      },
    },
  },
];

const implementations: Record<string, (args: { a: number; b: number }) => number> = {
  add: ({ a, b }) => a + b,
  multiply: ({ a, b }) => a * b,
};

/** Runs the scripted task once; returns the answer and how many model requests it took. */
export async function bareLoop(
  client: OpenAI,
  task: { model: string; systemPrompt: string; question: string },
): Promise<{ answer: string; requests: number }> {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: task.systemPrompt },
    { role: 'user', content: task.question },
  ];
  for (let requests = 1; requests <= 10; requests++) {
    const completion = await client.chat.completions.create({
      model: task.model,
      messages,
      tools: bareTools,
      tool_choice: 'required',
      temperature: 0,
    });
    const message = completion.choices[0]!.message;
    messages.push(message);
    for (const call of message.tool_calls ?? []) {
      if (call.type !== 'function') continue;
      const args = JSON.parse(call.function.arguments);
      if (call.function.name === 'final_answer') return { answer: args.answer, requests };
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: String(implementations[call.function.name]!(args)),
      });
    }
  }
  throw new Error('bare loop: no answer');
}
