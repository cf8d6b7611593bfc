/**
 * A run of the bot's own client and agent loop against llama-server as it was tried for real
 * (test/support/model-servers/llama-server.ts: a tiny model that writes a story until the length
 * limit stops it wherever no grammar holds it to a call; issue 38).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../db/store.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import { runAgent } from '../../src/agent/run-agent.ts';
import { createOpenAIModelClient } from '../../src/model-servers/openai-model-client.ts';
import { recordsInDatabase } from '../../src/model-servers/server-records.ts';
import { type FakeModelServer, startFakeModelServer } from '../support/fake-model.ts';
import { followInstructions } from '../support/model-servers/brain.ts';
import { llamaServerDefaults, llamaServerNoTemplate } from '../support/model-servers/llama-server.ts';
import type { Quirk } from '../support/model-servers/quirks.ts';

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function runOn(quirk: Quirk) {
  server = await startFakeModelServer(quirk);
  server.otherwise(followInstructions);
  const store = openStore(':memory:');
  const records = recordsInDatabase(store.modelServers);
  const model = createOpenAIModelClient(
    {
      apiKey: null,
      baseURL: server.baseURL,
      model: 'test-model',
      temperature: 0.2,
      maxRetries: 0,
      timeoutSeconds: 10,
      maxRetryWaitSeconds: 1,
      provider: 'llamacpp',
    },
    { records, logger: silentLogger },
  );
  const result = await runAgent({
    model,
    systemPrompt: 'You are a helpful bot.',
    history: [],
    input: [{ role: 'user', content: 'ada: Tell me a story.' }],
    tools: [],
    context: {
      conversationId: 'c',
      guildId: null,
      channelId: null,
      requester: { id: 'ada', displayName: 'ada', isModerator: false },
      logger: silentLogger,
    },
    settings: { maxSteps: 4, maxToolCallsPerTurn: 4, runTimeoutMs: 20_000, toolTimeoutMs: 5_000 },
  });
  store.close();
  return result;
}

describe('llama-server without a tool template: "required" holds nothing, and the model writes to the length limit', () => {
  it('a reply in prose cut at the length limit moves the request to the text protocol, as the doctor reads it', async () => {
    await runOn(llamaServerNoTemplate);

    const [first, second] = server!.requests;
    expect(first!.tools).toBeDefined();
    // The same request once more, in the text protocol: the tools in the prompt, none in the request.
    expect(second!.tools).toBeUndefined();
    expect(JSON.stringify(second!.messages[0])).toContain('<tools>');
  });

  it('at the default 2,048-token context, the nudge sends only the start of a reply that filled it: the run ends with an answer, not a 400', async () => {
    const result = await runOn(llamaServerDefaults);

    expect(result.error).toBeNull();
    expect(result.status).toBe('answered');
    const nudged = server!.requests.find((request) =>
      request.messages.some((message) => String(message.content).includes('every reply must be a tool call')),
    )!;
    const cut = nudged.messages.find((message) => message.role === 'assistant')!;
    expect(String(cut.content)).toMatch(/^Once upon a time.{0,400} \[cut off at the length limit\]$/s);
  });
});
