/**
 * `npm run doctor` as an operator runs it: the real script in a process of its own, with only the
 * model settings and a fresh database, against the fakes of the model servers people use (each
 * reproducing its documented quirk, test/support/model-servers/quirks.ts). What it prints, its exit
 * code, and what it leaves in the database for the bot; and the line the bot logs at start from it.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../db/store.ts';
import { botDependencies } from '../../src/app/bot-dependencies.ts';
import { parseConfig } from '../../src/settings/config.ts';
import type { CheckupRow, StoredCheckup } from '../../src/model-servers/server-summary.ts';
import { followInstructions } from '../support/model-servers/brain.ts';
import { type FakeModelServer, type FakeServerOptions, startFakeModelServer } from '../support/fake-model.ts';
import * as quirks from '../support/model-servers/quirks.ts';
import type { Quirk } from '../support/model-servers/quirks.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { runScript } from '../support/run-process.ts';

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface DoctorRun {
  code: number | null;
  stdout: string;
  stderr: string;
  databasePath: string;
  /** The report the doctor stored, by check id. */
  rows: Record<string, CheckupRow>;
  checkup: StoredCheckup | null;
  /** The fixes remembered for the server and model. */
  learned: Record<string, unknown>;
}

/** Runs the doctor against `baseURL` with a fresh database; resolves with what it printed and stored. */
async function runDoctor(baseURL: string, env: Record<string, string> = {}): Promise<DoctorRun> {
  const cwd = mkdtempSync(join(tmpdir(), 'doctor-'));
  const databasePath = join(cwd, 'bot.sqlite');
  const model = env.OPENAI_MODEL ?? 'test-model';
  const result = await runScript('src/doctor.ts', {
    cwd,
    env: { OPENAI_BASE_URL: baseURL, OPENAI_MODEL: model, DATABASE_PATH: databasePath, ...env },
  });
  const store = openStore(databasePath);
  try {
    const row = store.modelServers.get(baseURL, model);
    const checkup = row?.checkup ? (JSON.parse(row.checkup) as StoredCheckup) : null;
    return {
      ...result,
      databasePath,
      checkup,
      rows: Object.fromEntries((checkup?.rows ?? []).map((entry) => [entry.check, entry])),
      learned: JSON.parse(row?.learned ?? '{}') as Record<string, unknown>,
    };
  } finally {
    store.close();
  }
}

/** A fake server with `quirk` whose model does what each request says, then the doctor against it. */
async function doctorOn(quirk: Quirk, env: Record<string, string> = {}, options: FakeServerOptions = {}) {
  server = await startFakeModelServer(quirk, options);
  server.otherwise(followInstructions);
  return runDoctor(server.baseURL, env);
}

const capabilities = [
  'required-choice',
  'named-choice',
  'strict-schemas',
  'parallel-calls',
  'images',
  'streaming',
  'context',
  'prompt-reuse',
];

describe('npm run doctor against a server that honours everything', () => {
  it("with a local server's placeholder key (OPENAI_API_KEY=none), masks no word of its report", async () => {
    const run = await doctorOn(quirks.compliant, { OPENAI_API_KEY: 'none' }, { apiKey: 'none' });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('none needed');
    expect(run.stdout).not.toContain('[redacted]');
  });

  it('reports every capability honoured, learns nothing, and exits 0, never showing the key', async () => {
    const key = 'sk-doctor-test-key-0123456789';
    const run = await doctorOn(quirks.compliant, { OPENAI_API_KEY: key }, { apiKey: key });

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(Object.keys(run.rows)).toEqual(['reachable', 'key', 'model', ...capabilities, 'end-to-end']);
    const { 'prompt-reuse': reuse, ...others } = run.rows;
    for (const row of Object.values(others)) expect(row.status, row.check).toBe('ok');
    // OpenAI's own replies say it (usage.prompt_tokens_details.cached_tokens); this fake says nothing.
    expect(reuse).toMatchObject({ status: 'unknown', result: expect.stringMatching(/^not reported/) });
    expect(run.rows.key!.result).toBe('accepted');
    expect(run.rows.model!.result).toBe('listed by the server');
    expect(run.rows['parallel-calls']!.result).toBe('yes: 2 calls in one reply');
    expect(run.rows['end-to-end']!.result).toBe('answered in 2 steps: ping, then final_answer');
    expect(run.checkup).toMatchObject({ works: true, provider: 'generic' });
    expect(run.learned).toEqual({});
    expect(run.stdout).toContain('Profile: OpenAI-compatible server (found from OPENAI_BASE_URL)');
    expect(run.stdout).toContain('The bot can work with this server and model.');
    expect(run.stdout).not.toContain(key);
    expect(JSON.stringify(run.checkup)).not.toContain(key);
    // The probes went to the raw server: "required" as asked, and only the strict probe strict.
    const probes = server!.requests.filter((request) => !request.messages.some((message) => message.role === 'system'));
    expect(probes).toHaveLength(6);
    expect(probes.filter((request) => JSON.stringify(request.tools ?? []).includes('"strict"'))).toHaveLength(1);
  });
});

describe('npm run doctor against servers with gaps', () => {
  it('Ollama: "required" and named choices ignored, the text protocol learned, and the run answers through it', async () => {
    const run = await doctorOn(quirks.ollamaIgnoresToolChoice);

    expect(run.code).toBe(0);
    expect(run.rows['required-choice']).toMatchObject({
      status: 'gap',
      result: 'ignored: answered in plain text',
      action: 'writes the tools into the prompt (text protocol): remembered',
    });
    expect(run.rows['named-choice']).toMatchObject({
      status: 'gap',
      result: 'ignored: called ping, not pong',
      action: 'none needed: in the text protocol the prompt names the tool to call',
    });
    expect(run.rows['end-to-end']).toMatchObject({ status: 'ok' });
    expect(run.learned).toEqual({ toolProtocol: 'text' });
    // The agent run spoke the text protocol: tools in the system prompt, none in the request.
    const agentRequests = server!.requests.filter((request) => request.messages[0]?.role === 'system');
    expect(agentRequests.length).toBeGreaterThan(0);
    for (const request of agentRequests) expect(request.tools).toBeUndefined();
    expect(run.stdout).toContain('Learned now, and remembered in');
    expect(run.stdout).toContain('tools described in the prompt, calls read from the text');
  });

  it('Gemini as a generic server: strict schemas refused, the keywords left out and thought signatures learned', async () => {
    const run = await doctorOn(quirks.gemini, { MODEL_PROVIDER: 'generic' });

    expect(run.code).toBe(0);
    expect(run.rows['strict-schemas']).toMatchObject({
      status: 'gap',
      result: expect.stringMatching(/^refused \(400\): Invalid JSON payload received\. Unknown name/),
      action: 'schemas sent without: additionalProperties, strict: remembered',
    });
    expect(run.rows['required-choice']!.status).toBe('ok');
    expect(run.rows['end-to-end']!.status).toBe('ok');
    expect(run.learned).toMatchObject({
      dropSchemaKeywords: expect.arrayContaining(['additionalProperties', 'strict']),
      keepExtraContent: true,
    });
  });

  it('llama.cpp: the named choice ignored (the profile sends it as "required"), images refused', async () => {
    const run = await doctorOn(quirks.llamacppNamedChoiceAsAuto, { MODEL_PROVIDER: 'llamacpp' });

    expect(run.code).toBe(0);
    expect(run.rows['required-choice']!.status).toBe('ok');
    expect(run.rows['named-choice']).toMatchObject({
      status: 'gap',
      result: 'ignored: called ping, not pong',
      action: `sends it as "required" with that tool alone (the profile's fix)`,
    });
    expect(run.rows.images).toMatchObject({
      status: 'gap',
      result: 'no: refused (400): image input is not supported by this model',
      action: 'images are not sent to this model (MODEL_VISION=auto: remembered)',
    });
    expect(run.learned).toEqual({});
    expect(run.stdout).toContain('Advice for llama.cpp server:');
  });

  it('llama.cpp found as a generic server: the named choice fix is learned instead', async () => {
    const run = await doctorOn(quirks.llamacppNamedChoiceAsAuto);
    expect(run.code).toBe(0);
    expect(run.rows['named-choice']!.action).toBe('sends it as "required" with that tool alone: remembered');
    expect(run.learned).toEqual({ namedChoice: 'required-with-one-tool' });
  });

  it('Ollama with TOOL_PROTOCOL=text: the gaps need nothing, and nothing is learned', async () => {
    const run = await doctorOn(quirks.ollamaIgnoresToolChoice, { TOOL_PROTOCOL: 'text' });
    expect(run.code).toBe(0);
    expect(run.rows['required-choice']!.action).toBe(
      'none needed: TOOL_PROTOCOL=text writes the tools into the prompt',
    );
    expect(run.rows['end-to-end']!.status).toBe('ok');
    expect(run.learned).toEqual({});
  });

  it.each([
    { quirk: quirks.mistral, required: 'honoured', learned: {} },
    { quirk: quirks.groq, required: 'honoured', learned: {} },
    { quirk: quirks.thinkInContent, required: 'honoured', learned: {} },
    {
      quirk: quirks.reasoningField('reasoning_content', { requiredBack: true }),
      required: 'honoured',
      // Learned by the agent run, whose second turn sends the first one's call back.
      learned: { reasoningBack: 'reasoning_content' },
    },
    { quirk: quirks.reasoningField('reasoning'), required: 'honoured', learned: {} },
    { quirk: quirks.hermesCallInContent, required: 'honoured, the call written as text in the content', learned: {} },
    { quirk: quirks.emptyReplyWhenForced, required: 'ignored: an empty reply', learned: { toolProtocol: 'text' } },
  ])(
    '$quirk.name: runs to the end, answers, and says what the bot does about each check',
    async ({ quirk, required, learned }) => {
      const run = await doctorOn(quirk);

      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(Object.keys(run.rows)).toEqual(['reachable', 'key', 'model', ...capabilities, 'end-to-end']);
      expect(run.rows['required-choice']!.result).toBe(required);
      expect(run.rows['end-to-end']).toMatchObject({
        status: 'ok',
        action: 'the bot can work with this server and model',
      });
      for (const row of Object.values(run.rows)) {
        expect(row.status, row.check).not.toBe('fatal');
        expect(row.action, row.check).not.toBe('');
      }
      expect(run.learned).toEqual(learned);
      expect(run.stdout).toContain('The bot can work with this server and model.');
    },
  );
});

describe('npm run doctor against llama-server as it was tried (b8291, --jinja, a tiny model; issue 38)', () => {
  /** The probes' reply caps (the probes have no system message; the smallest request and the agent run have one; the images probe goes twice, its 500 retried). */
  const probeCaps = () =>
    server!.requests
      .filter((request) => !request.messages.some((message) => message.role === 'system'))
      .map((request) => request.max_tokens);

  it('Qwen 2.5\'s template, -c 8192 -n 512: native tools kept, the named choice sent as "required", one call per reply, no images, reuse seen', async () => {
    const run = await doctorOn(quirks.llamaServerQwenTemplate, { MODEL_PROVIDER: 'llamacpp' });

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.rows['required-choice']).toMatchObject({ status: 'ok', result: 'honoured' });
    // The named choice becomes "auto" and the model writes a story: the profile already sends it as "required".
    expect(run.rows['named-choice']).toMatchObject({
      status: 'gap',
      result: 'ignored: no call (read as "auto")',
      action: `sends it as "required" with that tool alone (the profile's fix)`,
    });
    expect(run.learned).toEqual({});
    // Asked as the bot asks (no parallel_tool_calls), llama.cpp makes one call.
    expect(run.rows['parallel-calls']).toMatchObject({ status: 'gap', result: 'one call per reply' });
    expect(run.rows.images).toMatchObject({
      status: 'gap',
      result: expect.stringMatching(/^no: refused \(500\): image input is not supported/),
      action: 'images are not sent to this model (MODEL_VISION=auto: remembered)',
    });
    expect(run.rows.streaming!.status).toBe('ok');
    expect(run.rows.context).toMatchObject({
      status: 'ok',
      result: expect.stringMatching(/^the smallest request fits: [\d,]+ tokens$/),
    });
    expect(run.rows['prompt-reuse']).toMatchObject({
      status: 'ok',
      result: expect.stringMatching(
        /^yes: the same request again reused [\d,]+ of [\d,]+ prompt tokens \(timings\.cache_n\)$/,
      ),
    });
    expect(run.rows['end-to-end']).toMatchObject({
      status: 'ok',
      result: 'answered in 2 steps: ping, then final_answer',
    });
    expect(new Set(probeCaps())).toEqual(new Set([256]));
  });

  it('no tool template, -c 8192 -n 512: "required" ignored (prose to the length limit), the text protocol learned, the run answers barely', async () => {
    const run = await doctorOn(quirks.llamaServerNoTemplate, { MODEL_PROVIDER: 'llamacpp' });

    expect(run.code).toBe(0);
    expect(run.rows['required-choice']).toMatchObject({
      status: 'gap',
      result: 'ignored: answered in plain text (cut at the length limit)',
      action: 'writes the tools into the prompt (text protocol): remembered',
    });
    expect(run.rows['named-choice']).toMatchObject({
      result: 'ignored: no call (read as "auto")',
      action: 'none needed: in the text protocol the prompt names the tool to call',
    });
    expect(run.learned).toEqual({ toolProtocol: 'text' });
    expect(run.rows.images!.result).toMatch(/^no: refused \(500\)/);
    expect(run.rows.context!.status).toBe('ok');
    expect(run.rows['prompt-reuse']!.status).toBe('ok');
    expect(run.rows['end-to-end']).toMatchObject({
      status: 'gap',
      result: 'answered in plain text after a nudge (2 steps)',
    });
    expect(new Set(probeCaps())).toEqual(new Set([256]));
  });

  it("the server's defaults (2,048 tokens, no tool template): the smallest request does not fit, said with the settings that fix it; every probe capped", async () => {
    const run = await doctorOn(quirks.llamaServerDefaults, { MODEL_PROVIDER: 'llamacpp', MEMORY_TOKEN_BUDGET: '4000' });

    expect(run.code).toBe(1);
    expect(run.rows['required-choice']).toMatchObject({
      status: 'gap',
      result: 'ignored: answered in plain text (cut at the length limit)',
    });
    expect(run.learned).toEqual({ toolProtocol: 'text' });
    // Capped, every probe was answered within its time: none reads "not checked".
    for (const check of ['required-choice', 'named-choice', 'strict-schemas', 'parallel-calls', 'images', 'streaming'])
      expect(run.rows[check]!.result, check).not.toMatch(/not checked/);
    expect(new Set(probeCaps())).toEqual(new Set([256]));
    expect(run.rows.context).toMatchObject({
      status: 'fatal',
      result: expect.stringMatching(
        /^too small: 2,048 tokens; the bot's smallest request \(system prompt, default tools, one message\) is 2,\d{3}$/,
      ),
      action: expect.stringContaining('llama-server -c 8192; Ollama: OLLAMA_CONTEXT_LENGTH=8192'),
    });
    expect(run.rows.context!.action).toContain('MEMORY_TOKEN_BUDGET=4,000');
    expect(run.rows['prompt-reuse']).toMatchObject({ status: 'unknown' });
    // The agent run's requests are smaller: its nudge sends back only the start of a reply that filled the context.
    expect(run.rows['end-to-end']).toMatchObject({
      status: 'gap',
      result: 'answered in plain text after a nudge (2 steps)',
    });
    expect(run.stdout).toContain(
      'The bot cannot work with this server and model: context size: too small: 2,048 tokens;',
    );
  });
});

describe("npm run doctor against a server that refuses the probes' reply cap", () => {
  it('sends each probe once more without it, and learns nothing of a parameter the bot never sends', async () => {
    // OpenAI's reasoning models, asked with max_tokens (platform.openai.com/docs/api-reference/chat/create).
    const noMaxTokens: Quirk = {
      ...quirks.compliant,
      name: 'refuses max_tokens',
      refuse: (request) =>
        'max_tokens' in request
          ? {
              status: 400,
              body: {
                error: {
                  message:
                    "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
                  type: 'invalid_request_error',
                  param: 'max_tokens',
                  code: 'unsupported_parameter',
                },
              },
            }
          : null,
    };
    const run = await doctorOn(noMaxTokens);

    for (const check of [
      'required-choice',
      'named-choice',
      'strict-schemas',
      'parallel-calls',
      'images',
      'streaming',
      'context',
    ])
      expect(run.rows[check]!.status, check).toBe('ok');
    expect(run.learned).toEqual({});
  });
});

describe('npm run doctor against a context smaller than its probes', () => {
  it('says so on each row the context refused (issue 39: "?" and the raw error on four rows), and what to set', async () => {
    const tiny = quirks.llamaServer({
      name: 'a 64-token context',
      contextTokens: 64,
      replyTokens: null,
      toolTemplate: true,
    });
    const run = await doctorOn(tiny, { MODEL_PROVIDER: 'llamacpp' });

    expect(run.code).toBe(1);
    for (const check of ['required-choice', 'named-choice', 'strict-schemas', 'parallel-calls', 'streaming'])
      expect(run.rows[check], check).toMatchObject({
        status: 'unknown',
        result: expect.stringMatching(
          /^not checked: the probe \(\d+ tokens\) does not fit the server's context \(64 tokens\)$/,
        ),
        action: 'see context size',
      });
    expect(run.rows.context).toMatchObject({
      status: 'fatal',
      action: expect.stringContaining('llama-server -c 16384'),
    });
  });
});

describe('npm run doctor when the bot cannot work', () => {
  it('a wrong key: exits 1 saying the key was refused, without sending a chat request or showing the key', async () => {
    const wrong = 'sk-wrong-key-abcdefghijkl';
    const run = await doctorOn(quirks.compliant, { OPENAI_API_KEY: wrong }, { apiKey: 'sk-right-key-0123456789' });

    expect(run.code).toBe(1);
    expect(run.rows.key).toMatchObject({
      status: 'fatal',
      result: 'refused (401): Incorrect API key provided',
      action: 'cannot work: set OPENAI_API_KEY to a key this server takes',
    });
    expect(run.stdout).toContain('The bot cannot work with this server and model: API key: refused (401)');
    expect(run.stdout).not.toContain(wrong);
    expect(server!.requests).toEqual([]);
  });

  it('an unknown model: exits 1 naming it, and the models the server has', async () => {
    const run = await doctorOn(quirks.compliant, { OPENAI_MODEL: 'no-such-model' });

    expect(run.code).toBe(1);
    expect(run.rows.model).toMatchObject({
      status: 'fatal',
      result: 'unknown: the server does not know "no-such-model"',
      action: 'cannot work: set OPENAI_MODEL to a model it serves (it lists test-model)',
    });
    expect(run.rows['end-to-end']).toBeUndefined();
    expect(run.stdout).toContain('does not know "no-such-model"');
  });

  it('an unreachable server: exits 1 at once, saying so', async () => {
    const run = await runDoctor(`http://127.0.0.1:${await freePort()}/v1`);

    expect(run.code).toBe(1);
    expect(run.rows.reachable).toMatchObject({ status: 'fatal', result: expect.stringMatching(/^no: ECONNREFUSED/) });
    expect(Object.keys(run.rows)).toEqual(['reachable']);
    expect(run.stdout).toContain('check OPENAI_BASE_URL, and that the server is running');
  });

  it('settings that cannot be used: exits 1 naming them, before any request', async () => {
    const run = await runDoctor('not a url');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('OPENAI_BASE_URL must be an http:// or https:// URL');
  });
});

describe('the start-up summary', () => {
  it("the bot logs what it remembers of the server (the doctor's report, the learned fixes), without a request", async () => {
    const run = await doctorOn(quirks.ollamaIgnoresToolChoice);
    const requestsAfterDoctor = server!.requests.length;

    const line = await startUpLine(server!.baseURL, run.databasePath);

    expect(line.msg).toMatch(
      new RegExp(
        `^model server: OpenAI-compatible server at ${server!.baseURL.replaceAll('.', '\\.')}, model test-model; ` +
          'learned: tools described in the prompt, calls read from the text; ' +
          'last doctor run \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC: gaps: tool_choice "required" \\(ignored: answered in plain text\\), ',
      ),
    );
    expect(line.fields).toMatchObject({
      provider: 'generic',
      learned: ['tools described in the prompt, calls read from the text'],
      works: true,
      gaps: expect.arrayContaining(['required-choice', 'named-choice']),
    });
    expect(server!.requests).toHaveLength(requestsAfterDoctor);
  });

  it('a server never checked: the line says to run the doctor', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'summary-'));
    const line = await startUpLine(`http://127.0.0.1:${await freePort()}/v1`, join(cwd, 'bot.sqlite'));
    expect(line.msg).toMatch(/; learned: nothing yet; never checked: run npm run doctor$/);
  });
});

/** The summary line `npm start` logs, from the bot's dependencies built as it builds them. */
async function startUpLine(baseURL: string, databasePath: string) {
  const loaded = parseConfig(
    {
      DISCORD_TOKEN: 'discord-token',
      OPENAI_BASE_URL: baseURL,
      OPENAI_MODEL: 'test-model',
      DATABASE_PATH: databasePath,
    },
    null,
    { purpose: 'bot' },
  );
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  const { logger, lines } = recordingLogger();
  const store = openStore(databasePath);
  try {
    await botDependencies(loaded.config, { store, instanceId: 'test', logger });
  } finally {
    store.close();
  }
  const line = lines.find((entry) => entry.msg?.startsWith('model server:'));
  if (!line) throw new Error(`no summary line among ${JSON.stringify(lines)}`);
  expect(line.level).toBe('info');
  return line;
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago, and nothing here takes it). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
