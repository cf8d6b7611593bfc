import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '../db/store.ts';
import type { AgentEvent } from '../src/agent/events.ts';
import type { ToolCall } from '../src/agent/messages.ts';
import { stepLogSink } from '../src/run-log/step-log-sink.ts';
import { formatRunDetail, formatRunsTable, type RunReport } from '../src/terminal/steps-report.ts';
import { runScript } from './support/run-process.ts';

const answered = 'a1000000-0000-4000-8000-000000000001';
const refused = 'b2000000-0000-4000-8000-000000000002';
const crashed = 'a3000000-0000-4000-8000-000000000003';
const t0 = Date.parse('2025-03-01T12:00:00.000Z');

const call = (id: string, name: string, args: unknown): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
});
const usage = (promptTokens: number, completionTokens: number) => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});

/** An agent event as the test writes it: the run id is added by `logRun`. */
type EventOfRun = AgentEvent extends infer Event ? (Event extends AgentEvent ? Omit<Event, 'runId'> : never) : never;

/** Feeds `events` to the real step-log sink, the clock moving 10 ms per event. */
function logRun(store: Store, conversationId: number, runId: string, startAt: number, events: EventOfRun[]) {
  const sink = stepLogSink(store.runs, store.steps, { conversationId, instanceId: 'bot-1', triggerMessageIds: [] });
  events.forEach((event, index) => {
    vi.setSystemTime(startAt + index * 10);
    sink({ ...event, runId } as AgentEvent);
  });
}

const modelCall = (
  step: number,
  message: { content: string | null; tool_calls?: ToolCall[] },
  tokens = usage(100, 20),
) =>
  ({
    type: 'model-call',
    step,
    toolChoice: 'required',
    message: { role: 'assistant', ...message },
    usage: tokens,
    finishReason: 'tool_calls',
    durationMs: 123,
  }) as const;
const runStart: EventOfRun = {
  type: 'run-start',
  conversationId: 'x',
  model: 'gpt-test',
  toolNames: ['calculator', 'current_time'],
  at: new Date(t0),
};
const runEnd = (status: 'answered' | 'stopped', stopReason: 'step-limit' | null, tokens = usage(200, 40)) =>
  ({
    type: 'run-end',
    status,
    stopReason,
    userMessage: null,
    error: null,
    errorCode: null,
    steps: 2,
    usage: tokens,
    durationMs: 0,
  }) as const;

let cwd: string;
let databasePath: string;

beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'steps-test-'));
  databasePath = join(cwd, 'bot.sqlite');
  vi.useFakeTimers({ toFake: ['Date'] });
  const store = openStore(databasePath);
  try {
    store.instances.register('bot-1', 'bot', t0 - 1000);
    const maths = store.conversations.ensure({
      key: 'terminal:maths',
      title: 'maths',
      guildId: null,
      channelId: null,
      startedById: null,
      startedByName: null,
    });
    const help = store.conversations.ensure({
      key: 'discord:42',
      title: 'help desk',
      guildId: '1',
      channelId: '2',
      startedById: null,
      startedByName: null,
    });

    logRun(store, maths.id, answered, t0, [
      runStart,
      modelCall(1, { content: null, tool_calls: [call('c1', 'calculator', { expression: '2+3*4' })] }),
      { type: 'tool-call', step: 1, callId: 'c1', name: 'calculator', arguments: '{"expression":"2+3*4"}' },
      { type: 'tool-result', step: 1, callId: 'c1', name: 'calculator', result: '14', durationMs: 3 },
      modelCall(2, {
        content: null,
        tool_calls: [call('c2', 'final_answer', { answer: '2 + 3 × 4 = 14', tools_used: ['calculator'] })],
      }),
      {
        type: 'final-answer',
        step: 2,
        callId: 'c2',
        answer: { answer: '2 + 3 × 4 = 14', tools_used: ['calculator'] },
        fallback: null,
      },
      runEnd('answered', null),
    ]);
    logRun(store, help.id, refused, t0 + 60_000, [
      runStart,
      modelCall(1, {
        content: null,
        tool_calls: [
          call('c3', 'calculator', '{"expr":"1/0"}'),
          call('c4', 'final_answer', { answer: 'Too early', tools_used: [] }),
        ],
      }),
      { type: 'tool-call', step: 1, callId: 'c3', name: 'calculator', arguments: '{"expr":"1/0"}' },
      {
        type: 'tool-error',
        step: 1,
        callId: 'c3',
        name: 'calculator',
        kind: 'invalid-arguments',
        error: 'expression: Invalid input: expected string, received undefined',
        durationMs: 0,
      },
      {
        type: 'tool-error',
        step: 1,
        callId: 'c4',
        name: 'final_answer',
        kind: 'not-executed',
        error: 'Not executed: call final_answer alone',
        durationMs: 0,
      },
      modelCall(2, { content: 'I could not\ndo it.' }),
      runEnd('stopped', 'step-limit', usage(180, 20)),
    ]);
    logRun(store, maths.id, crashed, t0 + 120_000, [
      runStart,
      modelCall(1, { content: null, tool_calls: [call('c5', 'current_time', { timezone: 'Europe/Paris' })] }),
      { type: 'tool-call', step: 1, callId: 'c5', name: 'current_time', arguments: '{"timezone":"Europe/Paris"}' },
    ]);
    // The process died here; the next one to start marked its runs interrupted, as startInstance does.
    store.runs.interruptAllOf('bot-1', t0 + 180_000);
    store.instances.stop('bot-1', t0 + 180_000);
  } finally {
    vi.useRealTimers();
    store.close();
  }
});

const steps = (args: string[], env: Record<string, string> = { DATABASE_PATH: databasePath }) =>
  runScript('src/steps.ts', { cwd, args, env });

describe('npm run steps', () => {
  it('lists the latest runs newest first, without any model settings', async () => {
    const result = await steps([]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'RUN       CONVERSATION  STATUS                DELIVERY  MODEL     STARTED               DURATION  TOKENS  TOOLS         ERROR',
        'a3000000  maths         interrupted           not yet   gpt-test  2025-03-01T12:02:00Z  1m 00s    120     current_time  the process running it stopped before it ended',
        'b2000000  help desk     stopped (step-limit)  not yet   gpt-test  2025-03-01T12:01:00Z  60 ms     200     calculator',
        'a1000000  maths         answered              not yet   gpt-test  2025-03-01T12:00:00Z  60 ms     240     calculator',
        '',
        "npm run steps -- --run <id> for one run's steps",
        '',
      ].join('\n'),
    );
  });

  it("shows one run's steps by id prefix: calls, arguments, results and the answer", async () => {
    const result = await steps(['--run', 'a1']);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`run           ${answered}\n`);
    expect(result.stdout).toContain('conversation  maths (terminal:maths)\n');
    expect(result.stdout).toContain('tokens        200 prompt + 40 completion = 240 total\n');
    expect(result.stdout).toContain(
      [
        '4 steps:',
        '#1 step 1 model-call 123 ms  tokens 100+20  → calls: calculator',
        '#2 tool-call calculator {"expression":"2+3*4"} → 14 (3 ms)',
        '#3 step 2 model-call 123 ms  tokens 100+20  → calls: final_answer',
        '#4 final answer: "2 + 3 × 4 = 14" (tools: calculator)',
        '',
      ].join('\n'),
    );
  });

  it('shows failed calls with their kind, a refused final answer with its arguments, and plain text', async () => {
    const result = await steps(['--run', 'b2']);

    expect(result.stdout).toContain('status        stopped (step-limit)\n');
    expect(result.stdout).toContain(
      '#2 tool-call calculator {"expr":"1/0"} ✗ invalid-arguments: expression: Invalid input: expected string, received undefined (0 ms)\n',
    );
    expect(result.stdout).toContain(
      '#3 tool-call final_answer {"answer":"Too early","tools_used":[]} ✗ not-executed: Not executed: call final_answer alone (0 ms)\n',
    );
    expect(result.stdout).toContain('#4 step 2 model-call 123 ms  tokens 100+20  → text: "I could not do it."\n');
  });

  it('shows a call cut off by a crash as never finished, and writes nothing to the database', async () => {
    const before = readFileSync(databasePath);

    const result = await steps(['--run', crashed]);

    expect(result.stdout).toContain('status        interrupted\n');
    expect(result.stdout).toContain('delivery      not yet: owed to its people');
    expect(result.stdout).toContain('error         the process running it stopped before it ended\n');
    expect(result.stdout).toContain('#2 tool-call current_time {"timezone":"Europe/Paris"} … never finished\n');
    // Byte for byte: no instance registered, no run touched, nothing migrated.
    expect(readFileSync(databasePath).equals(before)).toBe(true);
  });

  it('filters by thread title or key, and honours --last', async () => {
    const byTitle = await steps(['--thread', 'maths']);
    const byKey = await steps(['--thread', 'discord:42', '--last', '5']);
    const lastOne = await steps(['--last', '1']);

    expect(byTitle.stdout).toMatch(/^a3000000 /m);
    expect(byTitle.stdout).toMatch(/^a1000000 /m);
    expect(byTitle.stdout).not.toContain('b2000000');
    expect(byKey.stdout).toMatch(/^b2000000 {2}help desk/m);
    expect(byKey.stdout).not.toContain('maths');
    expect(lastOne.stdout.split('\n').filter((line) => /^[0-9a-f]{8} /.test(line))).toHaveLength(1);
    expect(lastOne.stdout).toContain('a3000000');
  });

  it('prints JSON alone with --json: runs, their conversation, and steps with messages and answers parsed', async () => {
    const result = await steps(['--json', '--thread', 'maths']);

    const { runs } = JSON.parse(result.stdout);
    expect(runs.map((run: { id: string }) => run.id)).toEqual([crashed, answered]);
    const run = runs[1];
    expect(run).toMatchObject({
      status: 'answered',
      total_tokens: 240,
      conversation: { key: 'terminal:maths', title: 'maths' },
      tools_used: ['calculator'],
    });
    expect(run.steps.map((step: { kind: string }) => step.kind)).toEqual([
      'model-call',
      'tool-call',
      'model-call',
      'final-answer',
    ]);
    expect(run.steps[0].message.tool_calls[0].function.name).toBe('calculator');
    expect(run.steps[1]).toMatchObject({
      tool_name: 'calculator',
      arguments: '{"expression":"2+3*4"}',
      status: 'ok',
      result: '14',
      duration_ms: 3,
    });
    expect(run.steps[3].result).toEqual({ answer: '2 + 3 × 4 = 14', tools_used: ['calculator'] });
    expect(runs[0].steps[1]).toMatchObject({ status: 'started', result: null, ended_at: null });
  });

  it('refuses an unknown thread, an ambiguous or unknown run, and an unknown flag', async () => {
    const thread = await steps(['--thread', 'nope']);
    const ambiguous = await steps(['--run', 'a']);
    const unknown = await steps(['--run', 'ffff']);
    const flag = await steps(['--thred', 'maths']);

    expect(thread.code).toBe(1);
    expect(thread.stdout).toBe('');
    expect(thread.stderr).toContain('No conversation has the key or title "nope"');
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain("no single run's id starts with it");
    expect(unknown.code).toBe(1);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('usage: npm run steps');
  });

  it('says there is no database rather than creating one', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'steps-none-'));

    const result = await runScript('src/steps.ts', { cwd: empty, env: {} });

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('There is no database at ./data/bot.sqlite (DATABASE_PATH)');
    expect(existsSync(join(empty, 'data'))).toBe(false);
  });

  it('reads DATABASE_PATH from .env as the bot does, and ignores settings it does not use, even broken ones', async () => {
    const other = mkdtempSync(join(tmpdir(), 'steps-dotenv-'));
    writeFileSync(join(other, '.env'), `DATABASE_PATH=${databasePath}\nOPENAI_TEMPERATURE=hot\n`);

    // Blank in the environment (compose's DATABASE_PATH=${DATABASE_PATH}) counts as unset, as in parseConfig.
    const result = await runScript('src/steps.ts', { cwd: other, args: ['--run', 'b2'], env: { DATABASE_PATH: '' } });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`run           ${refused}`);
  });
});

describe('the steps report', () => {
  const run = {
    id: 'c4000000-0000',
    conversation_id: 1,
    instance_id: 'i',
    trigger_message_ids: '[]',
    status: 'running',
    stop_reason: null,
    model: 'm',
    started_at: t0,
    ended_at: null,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    cached_tokens: 0,
    error: null,
    error_code: null,
    posted_message_ids: '[]',
    live_message_ids: '[]',
    live_pending: null,
    delivered_at: null,
    resumed_from: null,
    delivery: null,
    model_name: null,
    persona_version: null,
    kind: 'answer',
  } as const;
  const step = {
    id: 1,
    run_id: run.id,
    sequence: 1,
    kind: 'tool-call',
    model_step: 1,
    message: null,
    tool_name: 'calculator',
    tool_call_id: 'c',
    status: 'started',
    result: null,
    error: null,
    error_kind: null,
    note: null,
    prompt_tokens: null,
    completion_tokens: null,
    cached_tokens: null,
    duration_ms: null,
    started_at: t0,
    ended_at: null,
  } as const;

  it('cuts long arguments to one line of about 120 characters', () => {
    const report: RunReport = {
      run,
      conversation: null,
      steps: [{ ...step, arguments: `{"expression":"${'1+'.repeat(200)}1"}\n` }],
    };

    const line = formatRunDetail(report).split('\n').at(-1)!;

    expect(line).toMatch(/^#1 tool-call calculator \{"expression":"1\+1\+.*…/);
    expect(line.length).toBeLessThan(180);
  });

  it("folds a model call's thinking to one line under it", () => {
    const thinking = `The user wants ${'a very long chain of thought '.repeat(20)}`;
    const report: RunReport = {
      run,
      conversation: null,
      steps: [
        {
          ...step,
          kind: 'model-call',
          tool_name: null,
          tool_call_id: null,
          status: 'ok',
          arguments: null,
          message: JSON.stringify({ role: 'assistant', content: 'Four.', reasoning: thinking }),
        },
      ],
    };

    const [call, folded] = formatRunDetail(report).split('\n').slice(-2);

    expect(call).toMatch(/model-call .*→ text: "Four\."$/);
    expect(folded).toMatch(
      new RegExp(`^ {4}thinking \\(${thinking.length} characters\\): "The user wants a very long.*…"$`),
    );
    expect(folded!.length).toBeLessThan(180);
  });

  it('tells a call still under way from one that never finished', () => {
    const report: RunReport = { run, conversation: null, steps: [{ ...step, arguments: '{}' }] };

    expect(formatRunDetail(report)).toContain('#1 tool-call calculator {} … not finished yet');
    expect(formatRunsTable([report])).toMatch(
      /^c4000000 {2}#1 {12}running {2}- {9}m {6}2025-03-01T12:00:00Z {2}- {9}0 {7}calculator$/m,
    );
  });
});
