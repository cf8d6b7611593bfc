/**
 * Runs one planned run in Discord. Comes from: the queue's consumer (answer-new-messages.ts) or a
 * resumed run (resume-run.ts), past the seat before the model (before-model.ts), with a plan whose
 * PlaceChoice says the model, persona and tools of its place. Does: wait for the model (its rate
 * limit gate, a turn of MAX_CONCURRENT_RUNS, the daily budget) → run the agent (conversation-run.ts)
 * with the listeners of `runListeners` → retry once with half the window after "context too long".
 * Goes to: `deliver`, which posts the answer or why there is none (post-answer.ts).
 */
import { randomUUID } from 'node:crypto';
import type { SendableChannels } from 'discord.js';
import type { AgentEvent, AgentEventSink } from '../../agent/events.ts';
import type { ModelClient } from '../../agent/model-client.ts';
import type { ToolImage } from '../../agent/tool-images.ts';
import type { ConversationPlace } from '../../agent/system-prompt.ts';
import type { AnswerScreen } from '../../content-check/answer-screen.ts';
import type { ActiveRun } from '../../conversation/active-runs.ts';
import { type RunOutcome, type RunPlan, runPlan, type RunSetup } from '../../conversation/conversation-run.ts';
import type { LimitVerdict } from '../../conversation/usage-limits.ts';
import type { PlaceChoice } from '../../place-settings/place-choice.ts';
import { logSink } from '../../run-log/log-sink.ts';
import type { BotServices } from '../bot-services.ts';
import type { TargetToBe } from '../outbound/posting-channel.ts';
import { sendText } from '../outbound/send.ts';
import { answerScreenOf } from '../../content-check/answer-check.ts';
import { checkedPlace } from '../../content-check/content-checks.ts';
import { dataUrl } from '../../agent/messages.ts';
import { LiveAnswer } from './live-answer.ts';
import { deliver } from './post-answer.ts';
import { confirmationPort, inputPort } from './confirmation-port.ts';
import { toolPostsOf } from './tool-progress-posts.ts';
import { keepTyping } from './typing.ts';
import { forumPostTags, isForumPost } from '../inbound/forum-posts.ts';

/** What a run in Discord uses of the bot's services. */
export type RunServices = Pick<
  BotServices,
  | 'client'
  | 'store'
  | 'memory'
  | 'lifecycle'
  | 'limits'
  | 'gates'
  | 'activeRuns'
  | 'forgets'
  | 'tools'
  | 'toolServers'
  | 'agent'
  | 'discord'
  | 'operatorPrompt'
  | 'instanceId'
  | 'logger'
  | 'shutdown'
  | 'runSinks'
  | 'contentChecks'
  | 'confirmations'
  | 'inputRequests'
  | 'onDestructiveTool'
  | 'memberMemory'
>;

/** What planning a run uses besides: what the choice of its place reads (place-choice.ts). */
export type PlanServices = RunServices & Pick<BotServices, 'models' | 'vision' | 'memorySettings'>;

/** A run planned in Discord: what applies in its place, where its posts go, and where its answer was shown. */
export interface DiscordRunPlan extends Omit<RunPlan, 'persona' | 'toolAllowed' | 'seesImages' | 'memberMemory'> {
  choice: PlaceChoice;
  /** Known, or once the conversation's new thread is made: the run does not wait for it, its posts do. */
  target: TargetToBe;
  /** Messages the run this one resumes was showing its answer in, cut off: this run's answer goes there. */
  shownIn?: readonly string[];
}

/**
 * Answers with a run of the plan: the run is registered as going on (so that `/stop` finds it and a
 * forget waits for it) from now until its answer is delivered. A run stopped by the shutdown posts
 * nothing and is left interrupted. Resolves to whether the model's answer was posted.
 */
export async function answerWithRun(services: RunServices, plan: DiscordRunPlan): Promise<boolean> {
  const active = services.activeRuns.begin(plan.conversation.key, {
    guildId: plan.conversation.guild_id,
    requesterIds: plan.requesters.map((requester) => requester.id),
  });
  try {
    return await admitRunDeliver(services, plan, active);
  } finally {
    // Its answer posted and recorded: a /forget-me of one of its people may delete it now.
    active.settled();
  }
}

/**
 * Waits for the model (its rate-limit gate, a turn), admits the run under the daily budget, runs it
 * (once more with half the window after "context too long"), and delivers what comes of it.
 */
async function admitRunDeliver(services: RunServices, plan: DiscordRunPlan, active: ActiveRun): Promise<boolean> {
  const stopped = AbortSignal.any([services.shutdown, active.stopped]);
  let typing: { stop(): void } | null = null;
  let admission: Admission | null = null;
  let ran: RunInDiscord;
  try {
    await services.gates.of(plan.choice.modelName).waitForModel(plan.conversation.key, tellIn(plan.target), stopped);
    if (services.shutdown.aborted) return false; // Its messages are stored: answered after the next start.
    typing = keepTyping(plan.target, services.logger);
    admission = await admit(services, plan, active);
    if (!admission) return false;
    ran = await runWithPosts(services, plan, active, admission.model);
    if (ran.outcome.kind === 'context-too-long') ran = await retrySmaller(services, plan, active, ran);
  } finally {
    typing?.stop();
    admission?.release();
    // Ended before the answer is posted: a /stop now finds nothing to stop, rather than a run it cannot stop.
    active.end();
  }
  return deliver(services, plan, ran.outcome, ran.live, ran.screen);
}

/** Posts a notice where the run's posts go (once per `onceKey`: the same key, the same nonce). */
function tellIn(target: TargetToBe) {
  return async (text: string, onceKey: string) => sendText((await target).channel, text, { nonceSeed: onceKey });
}

/**
 * The same request with half the memory window, admitted once: the retry's calls take their turns
 * as any call does (the place's model client), and its tokens count against the same budget,
 * without a second check.
 */
async function retrySmaller(
  services: RunServices,
  plan: DiscordRunPlan,
  active: ActiveRun,
  ran: RunInDiscord,
): Promise<RunInDiscord> {
  await ran.live?.abandon();
  services.logger.warn(
    { runId: ran.outcome.runId, conversation: plan.conversation.key },
    'context too long: trying again with half the memory window',
  );
  const taken = services.lifecycle.retry(ran.outcome.runId);
  const window = services.memory.loadWindow(plan.conversation.id, plan.triggerIds, {
    budget: Math.floor(plan.choice.window.budget / 2),
    imageTokens: plan.choice.window.imageTokens,
    resuming: true,
  });
  return runWithPosts(services, { ...plan, ...window, ...taken }, active, plan.choice.model);
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
async function admit(services: RunServices, plan: DiscordRunPlan, active: ActiveRun): Promise<Admission | null> {
  const { model } = plan.choice;
  const unlimited = { model, release: () => {} };
  if (!model.turn) return unlimited;
  const turn = await model.turn(AbortSignal.any([services.shutdown, active.stopped])).catch(() => null);
  if (services.shutdown.aborted) {
    turn?.release();
    return null;
  }
  // Stopped while waiting: the run starts stopped, and says so.
  if (!turn) return unlimited;
  active.running();
  const requester = plan.requesters.at(-1);
  let verdict: LimitVerdict = { ok: true };
  try {
    if (requester) verdict = services.limits.admitRun(requester.id, plan.conversation.guild_id);
  } catch (error) {
    turn.release(); // The turn is not lost with the run that could not be admitted.
    throw error;
  }
  if (verdict.ok) return { model: turn.client, release: () => turn.release() };
  turn.release();
  await refuse(services, plan, verdict);
  return null;
}

/** Records a run the daily budget refused, and tells its people (once per budget day). */
async function refuse(services: RunServices, plan: DiscordRunPlan, verdict: LimitVerdict & { ok: false }) {
  const runId = randomUUID();
  services.lifecycle.refuse({
    id: runId,
    conversationId: plan.conversation.id,
    instanceId: services.instanceId,
    triggerMessageIds: [...plan.triggerIds],
    model: plan.choice.model.model,
    // A refused resumption still resumes its run: the interrupted run is not owed twice.
    resumedFrom: plan.resumedFrom,
    reason: 'the daily token budget is spent',
    told: verdict.tell,
  });
  services.logger.warn({ runId, conversation: plan.conversation.key }, 'run refused: the daily token budget is spent');
  if (verdict.tell)
    await deliver(services, plan, {
      kind: 'no-answer',
      runId,
      status: 'failed',
      stopReason: null,
      userMessage: verdict.message,
      rateLimitSeconds: null,
    });
}

/** What a run in Discord came to: its outcome, and the answer shown as it was written (if it was). */
interface RunInDiscord {
  outcome: RunOutcome;
  live: LiveAnswer | null;
  /** The content check of its answer (null: not checked here). */
  screen: AnswerScreen | null;
}

/**
 * One run with its posts in Discord: its tool calls posted as they finish, its answer shown as it is
 * written (STREAM_ANSWERS), checked as it goes where its place checks. runPlan (conversation-run.ts)
 * makes the agent's input of the plan and runs the agent loop (runAgent).
 */
async function runWithPosts(
  services: RunServices,
  plan: DiscordRunPlan,
  active: ActiveRun,
  model: ModelClient,
): Promise<RunInDiscord> {
  const runId = randomUUID();
  active.running();
  const screen = answerScreenOf(plan.choice.checks, plan, runId);
  const live = await liveAnswerOf(services, plan, runId, screen);
  const listeners = runListeners(services, plan, runId, live);
  const { choice } = plan;
  const setup: RunSetup = services;
  const outcome = await runPlan(
    setup,
    {
      ...plan,
      persona: choice.persona,
      toolAllowed: choice.toolAllowed,
      seesImages: choice.seesImages,
      showsImagesToPeople: services.discord.toolPosts !== 'off',
      memberMemory: choice.memberMemory,
      confirmTool: confirmationPort(services, plan, runId),
      askInput: inputPort(services, plan),
    },
    {
      runId,
      model,
      stop: active.stopped,
      shutdown: services.shutdown,
      streamAnswers: live !== null,
      sinks: listeners.sinks,
    },
  );
  if (outcome.kind === 'interrupted') services.lifecycle.interrupt(runId, 'the bot shut down before the run ended');
  else await listeners.flush();
  return { outcome, live, screen };
}

/** The answer shown as it is written (STREAM_ANSWERS), in the messages of the run it resumes if any. */
async function liveAnswerOf(
  services: RunServices,
  plan: DiscordRunPlan,
  runId: string,
  screen: AnswerScreen | null,
): Promise<LiveAnswer | null> {
  if (!services.discord.streamAnswers) return null;
  const options = {
    runId,
    ...(screen ? { allows: (text: string) => screen.allows(text) } : {}),
    onPosted: (messageId: string) => services.store.runs.addLiveMessage(runId, messageId),
    onPosting: (content: string) => services.store.runs.setLivePending(runId, content),
    logger: services.logger,
  };
  return plan.shownIn?.length
    ? LiveAnswer.resume(await plan.target, plan.shownIn, options)
    : new LiveAnswer(plan.target, options);
}

/**
 * Everyone who hears a Discord run's events, in the order they hear them. Before them all, the
 * run's record (the step log and memory, one transaction an event) hears it first: runPlan puts it
 * there, for the terminal's runs too.
 */
function runListeners(services: RunServices, plan: DiscordRunPlan, runId: string, live: LiveAnswer | null) {
  const posts = toolPostsOf(services, plan.target, runId, imagesScreen(plan, runId));
  const { choice } = plan;
  const onRunStart = (event: AgentEvent) => {
    if (event.type !== 'run-start') return;
    services.store.runs.setSettingsUsed(event.runId, choice.modelName, choice.personaVersion);
    // Messages taken over from the run this one resumes are this run's once its row exists.
    for (const id of live?.messageIds ?? []) services.store.runs.addLiveMessage(runId, id);
  };
  const showAnswer = (event: AgentEvent) => void (event.type === 'answer-delta' && live?.show(event.text));
  const sinks: AgentEventSink[] = [
    logSink(services.logger, { conversation: plan.conversation.key, channelId: plan.channelId }),
    ...posts.sinks,
    onRunStart,
    ...(live ? [showAnswer] : []),
    ...services.runSinks,
  ];
  return { sinks, flush: () => posts.flush() };
}

/**
 * The content check of the images a run's tools return for people, where its place checks: held
 * back unless shown, as an answer's words are (answer-screen.ts), and recorded as the answer's flag.
 */
function imagesScreen(plan: DiscordRunPlan, runId: string) {
  const checks = plan.choice.checks;
  if (!checks) return null;
  const place = checkedPlace(plan.conversation, runId, plan.triggerIds.at(-1) ?? null);
  return async (images: readonly ToolImage[]) => {
    const urls = images.map((image) => dataUrl(image.mediaType, image.base64));
    return (await checks.screen({ target: 'answer', text: '', images: urls }, place)).show;
  };
}

/** Where a Discord conversation takes place, as the model should know it. */
export function describePlace(channel: SendableChannels): ConversationPlace {
  if (channel.isDMBased())
    return {
      kind: 'direct-message',
      person: 'recipient' in channel ? (channel.recipient?.displayName ?? 'someone') : 'someone',
    };
  if (!('guild' in channel) || !channel.guild)
    return { kind: 'discord', server: 'unknown', channel: 'unknown', thread: null };
  if (channel.isThread())
    return {
      kind: 'discord',
      server: channel.guild.name,
      channel: channel.parent?.name ?? 'unknown',
      thread: channel.name,
      ...(isForumPost(channel) ? { forumTags: forumPostTags(channel) } : {}),
    };
  return {
    kind: 'discord',
    server: channel.guild.name,
    channel: 'name' in channel ? String(channel.name) : 'unknown',
    thread: null,
  };
}
