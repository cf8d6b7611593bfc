import { randomUUID } from 'node:crypto';
import type { Client, SendableChannels } from 'discord.js';
import type { AgentEvent } from '../../agent/events.ts';
import type { Store } from '../../../db/store.ts';
import type { LimitedModelClient } from '../../agent/limit-model-calls.ts';
import type { ModelClient } from '../../agent/model-client.ts';
import type { ConversationPlace } from '../../agent/system-prompt.ts';
import type { DiscordSettings } from '../../app/config-shape.ts';
import type { ActiveRun, ActiveRuns } from '../../conversation/active-runs.ts';
import { type RunOutcome, type RunPlan, type RunSetup, runPlan } from '../../conversation/conversation-run.ts';
import type { RunLifecycle } from '../../conversation/run-lifecycle.ts';
import { logSink } from '../../run-log/log-sink.ts';
import { describeDiscordError } from '../discord-errors.ts';
import type { RateLimitGate } from '../../conversation/rate-limit-gate.ts';
import { renderAnswer } from '../../posts/render.ts';
import { sendText } from '../outbound/send.ts';
import { toolPostSink } from '../../posts/tool-post-sink.ts';
import { keepTyping } from './typing.ts';
import { LiveAnswer } from './live-answer.ts';
import type { TargetToBe } from '../outbound/posting-channel.ts';
import type { LimitVerdict, UsageLimits } from '../../conversation/usage-limits.ts';
import type { ModelCatalog } from '../../model-catalog/model-catalog.ts';
import {
  type ModelVision,
  settingsOfConversation,
  toolAllowedBy,
  windowOptions,
} from '../../place-settings/place-choice.ts';

export interface RunnerDependencies extends RunSetup {
  client: Client<true>;
  store: Store;
  lifecycle: RunLifecycle;
  /** With `turn` (limitModelCalls), the daily budget is checked when a run's first call has its turn. */
  model: ModelClient & Partial<Pick<LimitedModelClient, 'turn'>>;
  /** The usage limits; none in tests that need none. */
  limits?: UsageLimits;
  discord: DiscordSettings;
  /** The memory window's token budget (halved for the retry after "context too long"). */
  memoryBudget: number;
  gate: RateLimitGate;
  /** The gate of each model (by name): a rate limit holds back the runs of that model only. */
  gateFor?: (modelName: string) => RateLimitGate;
  /** Fires at shutdown: runs stop, unposted, and are taken up at the next start. */
  shutdown: AbortSignal;
  activeRuns: ActiveRuns;
  /** The models on offer, chosen per place (`/settings model`, `/model`); without it, `model` always. */
  models?: ModelCatalog;
  /** What each model (by name) sees: images or none, and how it counts them; without it, `settings.seesImages` always. */
  visionOf?: (modelName: string) => ModelVision;
}

/** A run planned in Discord: where its posts go, and the message its answer replies to. */
export interface DiscordRunPlan extends RunPlan {
  /** Known, or once the conversation's new thread is made: the run does not wait for it, its posts do. */
  target: TargetToBe;
  /** Messages the run this one takes up was showing its answer in, cut off: this run's answer goes there. */
  shownIn?: readonly string[];
  /** The model (by name) and persona version its place's settings gave it, recorded with the run. */
  settingsUsed?: { modelName: string; personaVersion: number | null };
}

/**
 * Runs a plan and delivers what comes of it: wait for the model (rate limit, turn, budget) → run →
 * deliver. Tool calls are posted as they finish, then the answer or why there is none. A run stopped
 * by the shutdown posts nothing and is left interrupted; "context too long" is tried once more with
 * half the window.
 */
export async function executeRun(shared: RunnerDependencies, planned: DiscordRunPlan): Promise<void> {
  const { deps, plan } = asPlaceSays(shared, planned);
  const active = deps.activeRuns.begin(plan.conversation.key);
  let typing: { stop(): void } | null = null;
  let admission: Admission | null = null;
  let ran: RunInDiscord;
  try {
    await deps.gate.waitForModel(plan.conversation.key, plan.target, AbortSignal.any([deps.shutdown, active.stopped]));
    if (deps.shutdown.aborted) return; // Its messages are stored: answered after the next start.
    typing = keepTyping(plan.target, deps.logger);
    admission = await admit(deps, plan, active);
    if (!admission) return;
    ran = await runInDiscord(deps, plan, active, admission.model);
    if (ran.outcome.kind === 'context-too-long') {
      await ran.live?.abandon();
      deps.logger.warn(
        { runId: ran.outcome.runId, conversation: plan.conversation.key },
        'context too long: trying again with half the memory window',
      );
      // The same request, admitted once: the retry's calls take their turns as any call does
      // (deps.model), and its tokens count against the same budget, without a second check.
      const taken = deps.lifecycle.retry(ran.outcome.runId);
      const window = deps.memory.loadWindow(plan.conversation.id, plan.triggerIds, {
        ...windowOptions(deps, plan.conversation),
        budget: Math.floor(deps.memoryBudget / 2),
        resuming: true,
      });
      ran = await runInDiscord(deps, { ...plan, ...window, ...taken }, active, deps.model);
    }
  } finally {
    typing?.stop();
    admission?.release();
    // Ended before the answer is posted: a /stop now finds nothing to stop, rather than a run it cannot stop.
    active.end();
  }
  await deliver(deps, plan, ran.outcome, ran.live);
}

/** The run as its place's settings (read now) make it: its model, persona and tools. */
function asPlaceSays(deps: RunnerDependencies, plan: DiscordRunPlan) {
  if (!deps.models) return { deps, plan };
  const settings = settingsOfConversation(deps.store, deps.models, plan.conversation);
  if (!settings) return { deps, plan };
  return {
    // The retry after "context too long" halves the window this model was given.
    deps: {
      ...deps,
      model: deps.models.clientFor(settings.model.value),
      gate: deps.gateFor?.(settings.model.value) ?? deps.gate,
      memoryBudget: windowOptions(deps, plan.conversation, settings).budget,
      settings: {
        ...deps.settings,
        seesImages: deps.visionOf?.(settings.model.value).seesImages ?? deps.settings.seesImages,
      },
    },
    plan: {
      ...plan,
      persona: settings.persona?.value ?? null,
      toolAllowed: toolAllowedBy(settings, deps.toolServers),
      settingsUsed: { modelName: settings.model.value, personaVersion: settings.persona?.change?.id ?? null },
    },
  };
}

/** A run let through to the model: the client its first call uses, and the turn to give back if unspent. */
interface Admission {
  model: ModelClient;
  release(): void;
}

/**
 * Waits for the first model call's turn and checks the daily budget then: messages that arrived
 * together all passed it before any run was charged. A refused run is recorded, and its people are
 * told once. Null when there is nothing to run (refused, or the bot is shutting down).
 */
async function admit(deps: RunnerDependencies, plan: DiscordRunPlan, active: ActiveRun): Promise<Admission | null> {
  const unlimited = { model: deps.model, release: () => {} };
  if (!deps.model.turn) return unlimited;
  const turn = await deps.model.turn(AbortSignal.any([deps.shutdown, active.stopped])).catch(() => null);
  if (deps.shutdown.aborted) {
    turn?.release();
    return null;
  }
  // Stopped while waiting: the run starts stopped, and says so.
  if (!turn) return unlimited;
  active.running();
  const requester = plan.requesters.at(-1);
  let verdict: LimitVerdict = { ok: true };
  try {
    if (requester && deps.limits) verdict = deps.limits.admitRun(requester.id, plan.conversation.guild_id);
  } catch (error) {
    turn.release(); // The turn is not lost with the run that could not be admitted.
    throw error;
  }
  if (verdict.ok) return { model: turn.client, release: () => turn.release() };
  turn.release();
  const runId = randomUUID();
  const run = {
    id: runId,
    conversationId: plan.conversation.id,
    instanceId: deps.instanceId,
    triggerMessageIds: [...plan.triggerIds],
    model: deps.model.model,
    // A refused take-up still takes its run up: the interrupted run is not owed twice.
    resumedFrom: plan.resumedFrom,
  };
  deps.lifecycle.refuse({ ...run, reason: 'the daily token budget is spent', told: verdict.tell });
  deps.logger.warn({ runId, conversation: plan.conversation.key }, 'run refused: the daily token budget is spent');
  if (verdict.tell)
    await deliver(deps, plan, {
      kind: 'no-answer',
      runId,
      status: 'failed',
      stopReason: null,
      userMessage: verdict.message,
      rateLimitSeconds: null,
    });
  return null;
}

/** What a run in Discord came to: its outcome, and the answer shown as it was written (if it was). */
interface RunInDiscord {
  outcome: RunOutcome;
  live: LiveAnswer | null;
}

/** One run, its tool calls posted as they finish, and its answer shown as it is written (STREAM_ANSWERS). */
async function runInDiscord(
  deps: RunnerDependencies,
  plan: DiscordRunPlan,
  active: ActiveRun,
  model: ModelClient,
): Promise<RunInDiscord> {
  const runId = randomUUID();
  const { conversation } = plan;
  active.running();
  const record = (messageId: string) => deps.store.runs.addPostedMessage(runId, messageId);
  const posts = toolPostSink(plan.target, deps.discord.toolPosts, deps.logger, record);
  const liveOptions = {
    runId,
    onPosted: (messageId: string) => deps.store.runs.addLiveMessage(runId, messageId),
    onPosting: (content: string) => deps.store.runs.setLivePending(runId, content),
    logger: deps.logger,
  };
  const live = !deps.discord.streamAnswers
    ? null
    : plan.shownIn?.length
      ? await LiveAnswer.resume(await plan.target, plan.shownIn, liveOptions)
      : new LiveAnswer(plan.target, liveOptions);
  // Messages taken over from the run this one takes up are this run's once its row exists.
  const takeOver = (event: AgentEvent) => {
    if (event.type === 'run-start') for (const id of live?.messageIds ?? []) liveOptions.onPosted(id);
  };
  const { settingsUsed } = plan;
  const recordSettings = (event: AgentEvent) => {
    if (event.type === 'run-start' && settingsUsed)
      deps.store.runs.setSettingsUsed(event.runId, settingsUsed.modelName, settingsUsed.personaVersion);
  };
  const outcome = await runPlan(deps, plan, {
    runId,
    model,
    stop: active.stopped,
    shutdown: deps.shutdown,
    streamAnswers: live !== null,
    sinks: [
      logSink(deps.logger, { conversation: conversation.key, channelId: plan.channelId }),
      posts.sink,
      recordSettings,
      ...(live ? [takeOver, (event: AgentEvent) => void (event.type === 'answer-delta' && live.show(event.text))] : []),
    ],
  });
  if (outcome.kind === 'interrupted') deps.lifecycle.interrupt(runId, 'the bot shut down before the run ended');
  else await posts.flush();
  return { outcome, live };
}

/**
 * Posts the answer, or why there is none, and records the run delivered (tried, and logged if it
 * failed). An answer shown as it was written is edited into the answer; one stopped by `/stop` ends
 * with a mark saying so, one stopped by a limit (its time, its steps) with the limit's message; one
 * that came to nothing is removed, and why is posted as usual.
 */
async function deliver(
  deps: RunnerDependencies,
  plan: DiscordRunPlan,
  outcome: RunOutcome,
  live: LiveAnswer | null = null,
): Promise<void> {
  if (outcome.kind === 'interrupted') return;
  if (outcome.kind === 'no-answer' && outcome.rateLimitSeconds !== null)
    deps.gate.rateLimited(outcome.rateLimitSeconds, plan.conversation.key);
  const text = outcome.kind === 'answered' ? renderAnswer(outcome.answer) : outcome.userMessage;
  const { runId } = outcome;
  await live?.close(); // What was shown is settled before it is decided what to do with it.
  try {
    if (live?.started && outcome.kind === 'answered') await live.finish(text);
    else if (live?.started && outcome.kind === 'no-answer' && outcome.status === 'stopped')
      await live.finish(`${live.shown}\n-# ${outcome.stopReason === 'aborted' ? '(stopped)' : outcome.userMessage}`);
    else {
      await live?.abandon();
      const { channel, replyTo } = await plan.target;
      await sendText(channel, text, {
        replyTo,
        nonceSeed: `${runId}:answer`,
        onSent: (messageId) => deps.store.runs.addPostedMessage(runId, messageId),
      });
    }
    deps.lifecycle.deliver(runId, 'posted');
  } catch (error) {
    deps.logger.error(
      { err: error, runId, channelId: plan.channelId, cause: describeDiscordError(error) },
      'could not post the answer',
    );
    // Only a crash before this line leaves an answer to deliver at the next start.
    deps.lifecycle.deliver(runId, 'post-failed');
  }
}

/** Where a Discord conversation takes place, as the model should know it. */
export function describePlace(channel: SendableChannels): ConversationPlace & { kind: 'discord' } {
  if (!('guild' in channel) || !channel.guild)
    return { kind: 'discord', server: 'unknown', channel: 'unknown', thread: null };
  if (channel.isThread())
    return {
      kind: 'discord',
      server: channel.guild.name,
      channel: channel.parent?.name ?? 'unknown',
      thread: channel.name,
    };
  return {
    kind: 'discord',
    server: channel.guild.name,
    channel: 'name' in channel ? String(channel.name) : 'unknown',
    thread: null,
  };
}
