import type { SendableChannels } from 'discord.js';
import { fanOut } from '../agent/events.ts';
import type { Logger } from '../agent/logger.ts';
import { CallRefused } from '../agent/call-refused.ts';
import { ModelError } from '../agent/model-error.ts';
import { runAgent, type RunResult } from '../agent/run-agent.ts';
import { buildSystemPrompt } from '../agent/system-prompt.ts';
import { currentTools, toolsFor } from '../agent/tool-registry.ts';
import { logSink } from '../run-log/log-sink.ts';
import type { RunnerDependencies, RunPlan } from './conversation-runner.ts';
import { renderAnswer } from './render.ts';
import { sendText } from './send.ts';
import { toolPostSink } from './tool-post-sink.ts';

/** How often the typing indicator is renewed: it lasts about ten seconds. */
const typingRenewMs = 9_000;

/**
 * Runs the agent for a plan and posts what comes of it: tool calls as they finish, then the answer
 * or why there is none. A run stopped by shutdown posts nothing and is marked interrupted, to be
 * taken up at the next start; "context too long" is tried once more with half the window.
 */
export async function executeRun(deps: RunnerDependencies, plan: RunPlan, shrunk = false): Promise<void> {
  const { conversation, channel, logger } = { ...plan, logger: deps.logger };
  await deps.gate.waitForModel(conversation.key, channel, deps.shutdown);
  if (deps.shutdown.aborted) return;
  let runId: string | null = null;
  // Each posted message is recorded as soon as it is sent, so a later failure loses no record.
  const recordPosted = (messageId: string) => {
    if (runId) deps.store.runs.addPostedMessage(runId, messageId);
  };
  const posts = toolPostSink(channel, deps.discord.toolPosts, logger, recordPosted);
  const typing = keepTyping(channel, logger);
  // `/stop` aborts this controller; shutdown aborts every run.
  const stopper = new AbortController();
  deps.activeRuns.set(conversation.key, stopper);
  // Messages that arrived together all passed the budget before any run was charged: the first
  // model call of this run is admitted only if the budget still holds when its turn comes.
  let admitted = false;
  const requester = plan.requesters.at(-1)!;
  const admit = () => {
    if (admitted || !deps.limits) return;
    admitted = true;
    const verdict = deps.limits.admitRun(requester.id, conversation.guild_id);
    if (!verdict.ok) throw new CallRefused(verdict.message, !verdict.tell);
  };
  const model = deps.model.admitting ? deps.model.admitting(admit) : deps.model;
  let result: RunResult;
  try {
    result = await runAgent({
      model,
      systemPrompt: buildSystemPrompt({
        operatorPrompt: deps.operatorPrompt,
        now: new Date(),
        place: describePlace(channel),
        participants: [...new Set([conversation.started_by_name, ...plan.requesters.map((requester) => requester.displayName)].filter((name): name is string => !!name))],
      }),
      history: plan.history,
      input: plan.input,
      tools: toolsFor(currentTools(deps.tools, deps.toolServers), plan.requesters),
      context: { conversationId: conversation.key, guildId: conversation.guild_id, channelId: channel.id, requester: plan.requesters.at(-1)!, logger },
      settings: deps.agent,
      signal: AbortSignal.any([deps.shutdown, stopper.signal]),
      calledBefore: plan.calledBefore,
      onEvent: fanOut(
        [
          (event) => {
            if (event.type === 'run-start') runId = event.runId;
          },
          logSink(logger, { conversation: conversation.key, channelId: channel.id }),
          ...deps.memory.runSinks(conversation.id, deps.instanceId, plan.triggerIds, plan.resumedFrom),
          posts.sink,
        ],
        logger,
      ),
    });
    if (deps.shutdown.aborted && result.stopReason === 'aborted') {
      deps.store.runs.interrupt(result.runId, 'the bot shut down before the run ended');
      return;
    }
    await posts.flush();
  } finally {
    typing.stop();
    deps.activeRuns.delete(conversation.key);
  }

  if (isContextTooLong(result.error) && !shrunk) {
    logger.warn({ runId: result.runId, conversation: conversation.key }, 'context too long: trying again with half the memory window');
    // The retry takes this run up: its tool calls stay (after the question), its failure is not posted.
    deps.store.runs.markDelivered(result.runId);
    const window = deps.memory.loadWindow(conversation.id, plan.triggerIds, { budget: Math.floor(deps.memoryBudget / 2), resuming: true });
    const calledBefore = [...new Set([...plan.calledBefore, ...toolsRunIn(deps, result.runId)])];
    return executeRun(deps, { ...plan, ...window, resumedFrom: result.runId, calledBefore }, true);
  }
  if (result.error instanceof ModelError && result.error.kind === 'rate-limited' && result.error.retryAfterSeconds !== null) {
    deps.gate.rateLimited(result.error.retryAfterSeconds, conversation.key);
  }
  if (result.error instanceof CallRefused && result.error.quiet) {
    // Those who asked were told already, once, that the budget is spent.
    deps.store.runs.markDelivered(result.runId);
    return;
  }
  const text = result.answer ? renderAnswer(result.answer) : (result.userMessage ?? 'No answer.');
  try {
    await sendText(channel, text, { replyTo: plan.replyTo, nonceSeed: `${result.runId}:answer`, onSent: recordPosted });
  } catch (error) {
    logger.error({ err: error, runId: result.runId, channelId: channel.id, cause: describeDiscordError(error) }, 'could not post the answer');
  }
  // Tried, and logged if it failed: only a crash before this line leaves an answer to deliver at the next start.
  deps.store.runs.markDelivered(result.runId);
}

/** The tools a run ran (finished or not), from its step log. */
export function toolsRunIn(deps: Pick<RunnerDependencies, 'store'>, runId: string): string[] {
  const ran = deps.store.steps
    .ofRun(runId)
    .filter((step) => step.kind === 'tool-call' && step.tool_name && !['unknown-tool', 'invalid-arguments', 'not-executed'].includes(step.error_kind ?? ''));
  return [...new Set(ran.map((step) => step.tool_name!))];
}

/** Whether a failed run deserves a second try with a smaller window. */
function isContextTooLong(error: Error | null): boolean {
  return error instanceof ModelError && error.kind === 'context-too-long';
}

function describePlace(channel: SendableChannels) {
  if (!('guild' in channel) || !channel.guild) return { kind: 'discord' as const, server: 'unknown', channel: 'unknown', thread: null };
  if (channel.isThread()) return { kind: 'discord' as const, server: channel.guild.name, channel: channel.parent?.name ?? 'unknown', thread: channel.name };
  return { kind: 'discord' as const, server: channel.guild.name, channel: 'name' in channel ? String(channel.name) : 'unknown', thread: null };
}

/** A Discord failure as an operator reads it: the permission or state that stopped it. */
export function describeDiscordError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const known: Record<number, string> = {
    50001: 'missing access (View Channel)',
    50013: 'missing permissions (Send Messages / Send Messages in Threads / Create Public Threads)',
    50083: 'the thread is archived',
    160005: 'the thread is locked',
    10003: 'the channel no longer exists',
  };
  return typeof code === 'number' && known[code] ? known[code] : error instanceof Error ? error.message : String(error);
}

/** Shows "Bot is typing…" now, and again every few seconds until stopped. */
function keepTyping(channel: SendableChannels, logger: Logger): { stop(): void } {
  const type = () => channel.sendTyping().catch((error: unknown) => logger.debug({ err: error, channelId: channel.id }, 'typing indicator failed'));
  void type();
  const timer = setInterval(type, typingRenewMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
