import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../db/store.ts';
import type { AgentEvent } from '../../src/agent/events.ts';
import { noUsage } from '../../src/agent/messages.ts';
import { maxResumptions, runLifecycle, stateOf } from '../../src/conversation/run-lifecycle.ts';
import { stepLogSink } from '../../src/run-log/step-log-sink.ts';
import { tempStore } from '../support/temp-store.ts';

let store: Store;
let conversationId: number;
let question: number;

beforeEach(() => {
  store = tempStore().store;
  store.instances.register('i', 'bot');
  conversationId = store.conversations.ensure({
    key: 'discord:1',
    title: 't',
    guildId: 'g',
    channelId: 'c',
    threadId: '1',
    startedById: 'u',
    startedByName: 'Ada',
  }).id;
  question = store.messages.insert({
    conversationId,
    runId: null,
    role: 'user',
    authorId: 'u',
    authorName: 'Ada',
    content: 'hi',
    toolCalls: null,
    toolCallId: null,
    groupId: null,
    answersId: null,
    discordMessageId: '500',
    tokenCount: 3,
  })!;
});

/** Records a run's events through the real step-log sink, as a run of the bot does. */
function run(
  id: string,
  events: Partial<Record<'tool' | 'answer' | 'end', string>>,
  resumedFrom: string | null = null,
): void {
  const sink = stepLogSink(store.runs, store.steps, {
    conversationId,
    instanceId: 'i',
    triggerMessageIds: [question],
    resumedFrom,
  });
  const base = { runId: id, step: 1 };
  const script: AgentEvent[] = [
    { type: 'run-start', runId: id, conversationId: 'discord:1', model: 'm', toolNames: [], at: new Date() },
  ];
  if (events.tool) {
    script.push({ ...base, type: 'tool-call', callId: `${id}-call`, name: events.tool, arguments: '{}' });
    script.push({ ...base, type: 'tool-result', callId: `${id}-call`, name: events.tool, result: 'ok', durationMs: 1 });
  }
  if (events.answer)
    script.push({
      ...base,
      type: 'final-answer',
      callId: 'a',
      answer: { answer: events.answer, tools_used: [] },
      fallback: null,
    });
  if (events.end) {
    const status = events.end as 'answered' | 'failed' | 'stopped';
    script.push({
      type: 'run-end',
      runId: id,
      status,
      stopReason: null,
      userMessage: null,
      error: null,
      errorCode: null,
      steps: 1,
      usage: noUsage,
      durationMs: 1,
    });
  }
  for (const event of script) sink(event);
}

describe('the life of a run', () => {
  it('goes running → answered → delivered, and is owed to its people until delivered', () => {
    const lifecycle = runLifecycle(store);
    run('r1', {});
    expect(stateOf(store.runs.byId('r1')!)).toBe('running');
    run('r2', { answer: 'hello', end: 'answered' });
    expect(stateOf(store.runs.byId('r2')!)).toBe('answered');
    expect(lifecycle.owed(conversationId).map((row) => row.id)).toEqual(['r2']);

    lifecycle.deliver('r2', 'posted');
    expect(stateOf(store.runs.byId('r2')!)).toBe('delivered');
    expect(store.runs.byId('r2')!.delivery).toBe('posted');
    expect(lifecycle.owed(conversationId)).toEqual([]);
  });

  it('takes up an interrupted run: its answer on disk is posted, not asked for again', () => {
    const lifecycle = runLifecycle(store);
    run('r1', { answer: 'found it' });
    lifecycle.interrupt('r1', 'the bot shut down before the run ended');
    expect(stateOf(store.runs.byId('r1')!)).toBe('interrupted');

    expect(lifecycle.resumption(store.runs.byId('r1')!)).toEqual({
      kind: 'post-answer',
      answer: { answer: 'found it', tools_used: [] },
      triggerIds: [question],
    });
    lifecycle.answeredAfterAll('r1', 'posted');
    expect(store.runs.byId('r1')).toMatchObject({ status: 'answered', delivery: 'posted' });
  });

  it('records an answer found on disk whose post failed as answered, its delivery failed, and no longer owed', () => {
    const lifecycle = runLifecycle(store);
    run('r1', { answer: 'found it' });
    lifecycle.interrupt('r1', 'crash');
    lifecycle.answeredAfterAll('r1', 'post-failed');
    expect(store.runs.byId('r1')).toMatchObject({ status: 'answered', delivery: 'post-failed' });
    expect(lifecycle.owed(conversationId)).toEqual([]);
  });

  it('continues a run cut off mid-way, naming the tools its chain ran, and gives up on the third cut', () => {
    const lifecycle = runLifecycle(store);
    run('r1', { tool: 'calculator' });
    lifecycle.interrupt('r1', 'crash');
    expect(lifecycle.resumption(store.runs.byId('r1')!)).toEqual({
      kind: 'continue',
      triggerIds: [question],
      calledBefore: ['calculator'],
    });

    run('r2', { tool: 'current_time' }, 'r1');
    lifecycle.interrupt('r2', 'crash');
    // Taken up by r2: r1 is no longer owed, r2 is.
    expect(lifecycle.owed(conversationId).map((row) => row.id)).toEqual(['r2']);
    expect(lifecycle.resumption(store.runs.byId('r2')!)).toMatchObject({
      kind: 'continue',
      calledBefore: ['current_time', 'calculator'],
    });

    run('r3', {}, 'r2');
    lifecycle.interrupt('r3', 'crash');
    expect(store.runs.chain('r3')).toHaveLength(maxResumptions);
    expect(lifecycle.resumption(store.runs.byId('r3')!)).toEqual({ kind: 'give-up', triggerIds: [question] });
    lifecycle.giveUp('r3');
    expect(stateOf(store.runs.byId('r3')!)).toBe('given-up');
    expect(lifecycle.owed(conversationId)).toEqual([]);
  });

  it('owes nothing for a run whose messages were deleted', () => {
    const lifecycle = runLifecycle(store);
    run('r1', {});
    lifecycle.interrupt('r1', 'crash');
    store.messages.deleteByDiscordId('500');
    expect(lifecycle.resumption(store.runs.byId('r1')!)).toEqual({ kind: 'nothing-to-answer' });
  });

  it('retries with a smaller window in a new run that takes the failed one up', () => {
    const lifecycle = runLifecycle(store);
    run('r1', { tool: 'calculator', end: 'failed' });
    expect(lifecycle.retry('r1')).toEqual({ resumedFrom: 'r1', calledBefore: ['calculator'] });
    expect(store.runs.byId('r1')).toMatchObject({ status: 'failed', delivery: 'retried' });
    expect(lifecycle.owed(conversationId)).toEqual([]);
  });

  it('records a run refused for the budget: withheld when its people were told already, owed a notice otherwise', () => {
    const lifecycle = runLifecycle(store);
    const refused = {
      conversationId,
      instanceId: 'i',
      triggerMessageIds: [question],
      model: 'm',
      reason: 'the daily token budget is spent',
    };
    lifecycle.refuse({ ...refused, id: 'quiet', told: false });
    lifecycle.refuse({ ...refused, id: 'told', told: true });
    expect(store.runs.byId('quiet')).toMatchObject({
      status: 'failed',
      error_code: 'call-refused',
      delivery: 'withheld',
    });
    expect(stateOf(store.runs.byId('quiet')!)).toBe('delivered');
    expect(lifecycle.owed(conversationId).map((row) => row.id)).toEqual(['told']);
  });

  it('takes an interrupted run up even when the run taking it up is refused for the budget', () => {
    const lifecycle = runLifecycle(store);
    run('r1', { tool: 'calculator' });
    lifecycle.interrupt('r1', 'crash');
    lifecycle.refuse({
      id: 'refused',
      conversationId,
      instanceId: 'i',
      triggerMessageIds: [question],
      model: 'm',
      resumedFrom: 'r1',
      reason: 'the daily token budget is spent',
      told: false,
    });
    // r1 is no longer owed (or it would be taken up, and refused, at every start); the refusal is delivered.
    expect(lifecycle.owed(conversationId)).toEqual([]);
    expect(store.runs.chain('refused').map((row) => row.id)).toEqual(['refused', 'r1']);
  });
});
