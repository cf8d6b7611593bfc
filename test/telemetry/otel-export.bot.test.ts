/**
 * The runs exported to OpenTelemetry (issue 24), through the real bot process: a run with a tool
 * call reaches a fake OTLP receiver as a trace in the GenAI conventions and as metrics, over both
 * OTLP/HTTP protocols, each body decoded against the OTLP schema; flushed at shutdown (SIGTERM); a
 * failed run ends in error; message contents only when asked for; nothing loaded when unset.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BotProcess } from '../support/bot-process.ts';
import { useBotProcessWorld } from '../support/bot-process-world.ts';
import { apiError, finalAnswer, reportingCache, toolCalls } from '../support/fake-model.ts';
import { attributesOf, type FakeOtlp, startFakeOtlp } from '../support/fake-otlp.ts';

let otlp: FakeOtlp;
beforeEach(async () => {
  otlp = await startFakeOtlp();
});
// Registered first, so it runs after the world's teardown has stopped the bot.
afterEach(async () => {
  await otlp.close();
});
const world = useBotProcessWorld('otel-');
let bot: BotProcess | undefined;

const probe = new URL('../support/loaded-modules-probe.mjs', import.meta.url).pathname;

/** Starts the bot with these variables, its loaded modules written down. */
async function start(env: Record<string, string>): Promise<BotProcess> {
  bot = await world.start(
    { LOADED_MODULES_FILE: join(world.folder, 'loaded.txt'), ...env },
    { nodeArgs: ['--import', probe] },
  );
  return bot;
}

/** Ada asks in #general, and the bot answers (or says why not) in the thread. */
async function askAndWait(question: string): Promise<void> {
  await world.discord.userSays({
    channelId: world.discord.channels.general,
    author: 'ada',
    content: `<@${world.discord.botUser.id}> ${question}`,
    mentions: [world.discord.botUser.id],
  });
  const thread = await world.discord.waitFor(() => world.discord.threads()[0], { what: 'the thread' });
  await world.discord.waitFor(() => world.discord.botMessages(thread.id).length > 0, {
    what: 'the reply',
    timeoutMs: 15_000,
  });
}

/** SIGTERM, as a process manager stops the bot: what is left is exported before it exits. */
async function stop(): Promise<void> {
  bot!.child.kill('SIGTERM');
  expect(await bot!.exited).toBe(0);
}

const loadedOpenTelemetry = () =>
  readFileSync(join(world.folder, 'loaded.txt'), 'utf8')
    .split('\n')
    .filter((url) => /otel-pipeline|@opentelemetry/.test(url));

const spanNamed = (name: string) => otlp.spans().filter((span) => span.name === name);

describe.each([
  { protocol: 'http/protobuf', conventions: 'v1.36', providerKey: 'gen_ai.system' },
  { protocol: 'http/json', conventions: 'latest', providerKey: 'gen_ai.provider.name' },
])('a run exported over $protocol ($conventions GenAI conventions)', ({ protocol, conventions, providerKey }) => {
  it('is a trace: invoke_agent over chat and execute_tool spans, with tokens, model and tool; and metrics', async () => {
    await start({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer otel-secret-token',
      OTEL_SERVICE_NAME: 'bot-under-test',
      ...(conventions === 'latest' && { OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental' }),
    });
    world.model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }), finalAnswer('It is 42.'));
    await askAndWait('what is six times seven?');
    await stop();

    const [run] = spanNamed('invoke_agent discord-agent-bot');
    expect(run).toBeDefined();
    expect(run!.parentSpanId || undefined).toBeUndefined();
    expect(run!.status?.code ?? 0).not.toBe(2);
    expect(run!.resource).toMatchObject({ 'service.name': 'bot-under-test' });
    expect(attributesOf(run!.attributes)).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'discord-agent-bot',
      'gen_ai.request.model': 'gpt-4.1-mini',
      'gen_ai.usage.input_tokens': 200,
      'gen_ai.usage.output_tokens': 40,
      [providerKey]: expect.any(String),
    });
    const chats = spanNamed('chat gpt-4.1-mini');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat).toMatchObject({ traceId: run!.traceId, parentSpanId: run!.spanId, kind: 3 });
      expect(attributesOf(chat.attributes)).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4.1-mini',
        'gen_ai.usage.input_tokens': 100,
        'gen_ai.usage.output_tokens': 20,
        'gen_ai.response.finish_reasons': ['tool_calls'],
        'server.address': '127.0.0.1',
        [providerKey]: expect.any(String),
      });
    }
    const [tool] = spanNamed('execute_tool calculator');
    expect(tool).toMatchObject({ traceId: run!.traceId, parentSpanId: run!.spanId, kind: 1 });
    expect(attributesOf(tool!.attributes)).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'calculator',
    });
    expect(otlp.spans()).toHaveLength(4);

    // No message content unless asked for.
    const everything = JSON.stringify(otlp.exports.map((item) => item.body));
    expect(everything).not.toMatch(
      /six times seven|6\*7|It is 42|gen_ai\.(input|output)\.messages|tool\.call\.arguments/,
    );
    // The operator's headers go to the collector, and never to the logs.
    expect(otlp.exports.every((item) => item.headers.authorization === 'Bearer otel-secret-token')).toBe(true);
    expect(otlp.exports.every((item) => item.protocol === protocol)).toBe(true);
    expect(bot!.stdout + bot!.stderr).not.toContain('otel-secret-token');

    const metrics = new Map(otlp.metrics().map((metric) => [metric.name, metric]));
    const tokens = metrics.get('gen_ai.client.token.usage')?.histogram?.dataPoints ?? [];
    expect(tokens.map((point) => [attributesOf(point.attributes)['gen_ai.token.type'], point.sum])).toEqual(
      expect.arrayContaining([
        ['input', 200],
        ['output', 40],
      ]),
    );
    expect(metrics.get('gen_ai.client.operation.duration')).toMatchObject({ unit: 's' });
    expect(metrics.get('gen_ai.client.operation.duration')?.histogram?.dataPoints?.[0]?.count).toBe('2');
    const runs = metrics.get('discord_agent.runs')?.sum?.dataPoints ?? [];
    expect(runs.map((point) => [attributesOf(point.attributes)['discord_agent.run.status'], point.asInt])).toEqual([
      ['answered', '1'],
    ]);
    expect(loadedOpenTelemetry().length).toBeGreaterThan(0);
  });
});

describe('a failed run, and message contents', () => {
  it('ends its invoke_agent span in error; contents are there when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true', async () => {
    await start({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/v1/traces`,
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    });
    world.model.enqueue(
      toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }),
      apiError(400, 'this model does not take that request'),
    );
    await askAndWait('what is six times seven?');
    await stop();

    const [run] = spanNamed('invoke_agent discord-agent-bot');
    expect(run!.status).toMatchObject({ code: 2 });
    expect(attributesOf(run!.attributes)).toMatchObject({
      'discord_agent.run.status': 'failed',
      'error.type': expect.any(String),
    });
    const [tool] = spanNamed('execute_tool calculator');
    expect(attributesOf(tool!.attributes)).toMatchObject({
      'gen_ai.tool.call.arguments': '{"expression":"6*7"}',
      'gen_ai.tool.call.result': expect.stringContaining('42'),
    });
    const [chat] = spanNamed('chat gpt-4.1-mini');
    expect(JSON.parse(String(attributesOf(chat!.attributes)['gen_ai.output.messages']))).toMatchObject([
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'calculator' }] },
    ]);
    // Traces only: metrics have no endpoint of their own, and the shared one is unset.
    expect(otlp.exports.map((item) => item.signal)).not.toContain('metrics');
  });
});

describe('with no OTLP endpoint', () => {
  it('loads nothing of OpenTelemetry, and answers as before', async () => {
    await start({ OTEL_SERVICE_NAME: 'bot-under-test' });
    world.model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }), finalAnswer('It is 42.'));
    await askAndWait('what is six times seven?');
    await stop();
    const loaded = readFileSync(join(world.folder, 'loaded.txt'), 'utf8');
    expect(loaded).toContain('/dist/main.js');
    expect(loadedOpenTelemetry()).toEqual([]);
    expect(otlp.exports).toEqual([]);
  });
});

describe('a collector that cannot be reached', () => {
  it('is logged (without the headers), and the bot answers all the same', async () => {
    const gone = await startFakeOtlp();
    await gone.close();
    await start({ OTEL_EXPORTER_OTLP_ENDPOINT: gone.url, OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=otel-secret-token' });
    world.model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }), finalAnswer('It is 42.'));
    await askAndWait('what is six times seven?');
    await stop();
    expect(bot!.stdout).toContain('"msg":"OpenTelemetry export failed"');
    expect(bot!.stdout + bot!.stderr).not.toContain('otel-secret-token');
  });
});

describe('cached prompt tokens', () => {
  it('reach the chat and invoke_agent spans as gen_ai.usage.cache_read.input_tokens, where the server said them', async () => {
    await start({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    world.model.enqueue(
      reportingCache(toolCalls({ name: 'calculator', arguments: { expression: '6*7' } }), 64, 'openai'),
      reportingCache(finalAnswer('It is 42.'), 90, 'llama.cpp'),
    );
    await askAndWait('what is six times seven?');
    await stop();

    const chats = spanNamed('chat gpt-4.1-mini').map((span) => attributesOf(span.attributes));
    expect(chats.map((chat) => chat['gen_ai.usage.cache_read.input_tokens'])).toEqual([64, 90]);
    const [run] = spanNamed('invoke_agent discord-agent-bot');
    expect(attributesOf(run!.attributes)).toMatchObject({
      'gen_ai.usage.input_tokens': 200,
      'gen_ai.usage.cache_read.input_tokens': 154,
    });
    const cached = otlp.metrics().find((metric) => metric.name === 'discord_agent.client.cache_read.input_tokens');
    expect(cached?.sum?.dataPoints?.map((point) => point.asInt)).toEqual(['154']);
  });
});
