import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/agent/model-client.ts';
import { modelClientFor } from '../support/agent-harness.ts';
import { answer } from '../support/model-servers/brain.ts';
import { type FakeModelServer, startFakeModelServer } from '../support/fake-model.ts';
import { ollamaCutsLongPrompts } from '../support/model-servers/quirks.ts';
import { recordingLogger } from '../support/recording-logger.ts';

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const finalAnswerSpec = {
  type: 'function' as const,
  function: { name: 'final_answer', description: 'Answer.', parameters: { type: 'object' }, strict: false },
};
const asking = (question: string): ModelRequest => ({
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: question },
  ],
  tools: [finalAnswerSpec],
  toolChoice: 'required',
});

describe('a server that cuts the prompt to its context window', () => {
  it('is reported to the operator once, with what to set, and the run goes on', async () => {
    server = await startFakeModelServer(ollamaCutsLongPrompts);
    const { logger, lines } = recordingLogger();
    const client = modelClientFor(server, { provider: 'ollama' }, { logger });
    server.enqueue(answer('short'), answer('long'), answer('long again'));

    await client.complete(asking('A short question.'), new AbortController().signal);
    expect(lines.filter((line) => line.level === 'warn')).toEqual([]);

    const long = `Summarise this: ${'a long pasted text '.repeat(2000)}`;
    const reply = await client.complete(asking(long), new AbortController().signal);
    expect(reply.message.tool_calls?.[0]?.function.name).toBe('final_answer');
    await client.complete(asking(long), new AbortController().signal);

    const warnings = lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toContain('read only part of the prompt');
    expect(warnings[0]!.fields).toMatchObject({
      provider: 'ollama',
      promptTokensRead: 2048,
      advice: expect.arrayContaining([expect.stringContaining('OLLAMA_CONTEXT_LENGTH')]),
    });
  });

  it('is not weighed for a server whose profile says nothing of cutting (no second serialising of each request)', async () => {
    server = await startFakeModelServer(ollamaCutsLongPrompts);
    const { logger, lines } = recordingLogger();
    const client = modelClientFor(server, { provider: 'openai' }, { logger });
    server.enqueue(answer('long'));

    const long = `Summarise this: ${'a long pasted text '.repeat(2000)}`;
    const reply = await client.complete(asking(long), new AbortController().signal);

    expect(reply.usage?.promptTokens).toBe(2048);
    expect(lines.filter((line) => line.level === 'warn')).toEqual([]);
  });
});
