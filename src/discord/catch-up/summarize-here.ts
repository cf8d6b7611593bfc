/**
 * `/summarize`'s work once the asker may have it (commands/summarize.ts checked the place, their
 * permissions, `since:` and their limits, and deferred the reply): read the span from Discord
 * (read-history.ts), sum it up with the place's model (src/catch-up/catch-up-summary.ts; a progress
 * line while there are several pieces), turn the numbers it cites into jump links to messages read,
 * record the run (db/catch-up-runs.ts, kind 'catch-up': `/steps` lists it, its tokens count), pass
 * the words through the seat before posting (the answer's content check where the place checks; a
 * forget of someone it read meanwhile), and post them, pinging nobody.
 *
 * As a run: it waits at the model's rate-limit gate (saying so), and tells the gate of a long pause
 * the model asked for; `/stop` in the channel stops the asker's (an active run keyed by channel and
 * asker, `catchUpRunKey`), as a `/forget-me` of anyone it read does. And it has a time limit: Discord
 * serves a command's reply for 15 minutes from the command ("Interaction tokens are valid for 15
 * minutes", https://discord.com/developers/docs/interactions/receiving-and-responding#followup-messages),
 * so the work stops a minute before (or at SUMMARIZE_TIMEOUT_SECONDS, if sooner) and says so.
 */
import { randomUUID } from 'node:crypto';
import { type ChatInputCommandInteraction, MessageFlags, type TextBasedChannel } from 'discord.js';
import { catchUpConversationKey, type CatchUpCall } from '../../../db/catch-up-runs.ts';
import { recordedPlace } from '../../../db/forget-journal.ts';
import { type Deadline, deadline } from '../../agent/deadline.ts';
import { describeError, UserFacingError } from '../../agent/errors.ts';
import { ModelError } from '../../agent/model-error.ts';
import { sumUpMessages } from '../../catch-up/catch-up-summary.ts';
import { keepReadLinks, linkCitations, messageLink } from '../../catch-up/jump-links.ts';
import type { SinceStart } from '../../catch-up/since.ts';
import { AnswerScreen } from '../../content-check/answer-screen.ts';
import { checkedPlace } from '../../content-check/content-checks.ts';
import { placeChoice } from '../../place-settings/place-choice.ts';
import { splitMessage } from '../../posts/split-message.ts';
import { countOf } from '../../text/count.ts';
import { escapeMarkdown } from '../../text/markdown.ts';
import type { CommandContext } from '../interactions/command-context.ts';
import { noPings } from '../outbound/send.ts';
import { beforePost } from '../runs/before-post.ts';
import { type History, readHistory } from './read-history.ts';

/** Where and what: the channel, its server (null: a DM), the span, and whether everyone sees it. */
export interface CatchUpAsk {
  channel: TextBasedChannel;
  guildId: string | null;
  since: Exclude<SinceStart, { kind: 'refused' }>;
  isPublic: boolean;
}

/** What the asker is told when a forget of someone it read stopped it, or took its run. */
const forgottenMeanwhile = 'Someone whose words I read was forgotten meanwhile: ask again.';

/** The most messages read when SUMMARIZE_MAX_MESSAGES is not given. */
const defaultMaxMessages = 500;
/** How long one may take when SUMMARIZE_TIMEOUT_SECONDS is not given. */
const defaultTimeoutMs = 10 * 60_000;
/** How long Discord serves a command's reply (edits, follow-ups), and the time kept to say it stopped. */
const tokenLifeMs = 15 * 60_000;
const lastWordMs = 60_000;

/** The active run of `userId`'s /summarize in the channel: what `/stop` there stops. */
export const catchUpRunKey = (channelId: string, userId: string) => `catch-up:${channelId}:${userId}`;
/** Why `/stop` stopped one (the reason its signal carries). */
export const stoppedByAsker = 'stopped by the asker (/stop)';

/** Why it ends without a summary: what stopped it, or went wrong. */
interface Stops {
  limit: Deadline;
  stopped: AbortSignal;
}

/** Reads, sums up, records and posts; every failure ends in words for the asker. */
export async function summarizeHere(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  ask: CatchUpAsk,
): Promise<void> {
  const max = context.discord.summarizeMaxMessages ?? defaultMaxMessages;
  // Before the reading: a forget of someone it reads, made while it reads, is one its record sees.
  const startedAt = Date.now();
  const limit = deadline(timeAllowed(interaction, context, startedAt), context.shutdown);
  try {
    await readAndSumUp(interaction, context, ask, { limit, startedAt, max });
  } finally {
    limit.dispose();
  }
}

/** SUMMARIZE_TIMEOUT_SECONDS, or less: what is left of the reply's 15 minutes, less a minute to say it stopped. */
function timeAllowed(interaction: ChatInputCommandInteraction, context: CommandContext, now: number): number {
  const tokenLeft = interaction.createdTimestamp + tokenLifeMs - lastWordMs - now;
  return Math.max(0, Math.min(context.discord.summarizeTimeoutMs ?? defaultTimeoutMs, tokenLeft));
}

async function readAndSumUp(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  ask: CatchUpAsk,
  { limit, startedAt, max }: { limit: Deadline; startedAt: number; max: number },
): Promise<void> {
  let history: History;
  try {
    history = await limit.race(readHistory(ask.channel, ask.since, interaction.user.id, max));
  } catch (error) {
    if (!limit.expired)
      context.logger.warn({ err: error, channel: ask.channel.id }, '/summarize could not read the history');
    return void (await interaction.editReply({
      content: limit.expired ? tooLong(context) : 'I could not read the history here.',
      allowedMentions: noPings,
    }));
  }
  if (history.messages.length === 0)
    return void (await interaction.editReply({
      content: `Nothing was said here ${spanWords(ask, history)}.`,
      allowedMentions: noPings,
    }));
  const verdict = context.limits.admitRun(interaction.user.id, ask.guildId);
  if (!verdict.ok) return void (await interaction.editReply({ content: verdict.message, allowedMentions: noPings }));
  // Going on while it sums up, as a run is: a /forget-me of the asker or of anyone it read stops it
  // and waits for it (src/conversation/forgets.ts), as it holds their words.
  // /stop in the channel stops it too (commands/stop.ts).
  const authors = new Set([interaction.user.id, ...history.messages.map((message) => message.authorId)]);
  const active = context.activeRuns.begin(catchUpRunKey(ask.channel.id, interaction.user.id), {
    guildId: ask.guildId,
    requesterIds: [...authors],
  });
  try {
    await sumUpAndPost(interaction, context, ask, { history, startedAt, stops: { limit, stopped: active.stopped } });
  } finally {
    active.end();
    active.settled();
  }
}

/** The summing up, the run recorded, the seat before posting, the post. */
async function sumUpAndPost(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  ask: CatchUpAsk,
  { history, startedAt, stops }: { history: History; startedAt: number; stops: Stops },
): Promise<void> {
  const conversation = catchUpConversation(context, ask);
  const choice = placeChoice(context, conversation);
  await context.memory.ready();
  const run = { id: randomUUID(), startedAt, calls: [] as CatchUpCall[] };
  const record = (error: string | null) =>
    context.store.catchUps.record({
      ...run,
      conversationId: conversation.id,
      instanceId: context.instanceId,
      model: choice.model.model,
      modelName: choice.modelName,
      placeId: recordedPlace(ask.guildId, interaction.user.id),
      guildId: ask.guildId,
      authorIds: [interaction.user.id, ...history.messages.map((message) => message.authorId)],
      error,
    });
  const progress = (done: number, total: number) =>
    void interaction
      .editReply({
        content: `Reading ${countOf(history.messages.length, 'message')}: ${done} of ${total} parts summed up…`,
        allowedMentions: noPings,
      })
      .catch(() => {});
  let summary: string;
  const gate = context.gates.of(choice.modelName);
  // Each asker is told of a pause once: the gate's key is theirs here, not the channel's.
  const askerKey = catchUpRunKey(ask.channel.id, interaction.user.id);
  try {
    const parts = { model: choice.model, budget: choice.window.budget, counter: context.counter, progress };
    const signal = AbortSignal.any([stops.limit.signal, stops.stopped]);
    // As a run waits: while the model asked for a long pause, the asker is told when it will come.
    const tell = (text: string) => interaction.editReply({ content: text, allowedMentions: noPings });
    await gate.waitForModel(askerKey, tell, signal);
    summary = await sumUpMessages({ ...parts, signal }, history.messages, run.calls);
  } catch (error) {
    record(describeError(error));
    if (error instanceof ModelError && error.kind === 'rate-limited' && error.retryAfterSeconds !== null)
      gate.rateLimited(error.retryAfterSeconds, askerKey);
    return void (await interaction.editReply({
      content: endedWithout(context, stops, error),
      allowedMentions: noPings,
    }));
  }
  record(null);
  const screen = choice.checks
    ? new AnswerScreen(choice.checks, checkedPlace(conversation, run.id, null), 'a summary of the channel')
    : null;
  await screenAndPost(interaction, context, ask, { runId: run.id, screen, text: withLinks(summary, ask, history) });
}

/** What the asker is told when it ends without a summary. */
function endedWithout(context: CommandContext, { limit, stopped }: Stops, error: unknown): string {
  if (limit.expired) return tooLong(context);
  if (stopped.aborted)
    return stopped.reason instanceof Error && stopped.reason.message === stoppedByAsker
      ? 'Stopped: nothing was summed up.'
      : forgottenMeanwhile;
  return error instanceof UserFacingError ? error.userMessage : 'Something went wrong while summing up.';
}

/** Past its time limit. */
function tooLong(context: CommandContext): string {
  const minutes = Math.round((context.discord.summarizeTimeoutMs ?? defaultTimeoutMs) / 60_000);
  return `This took too long, so I stopped (a /summarize takes ${minutes < 1 ? 'under a minute' : `at most ${minutes} minute${minutes === 1 ? '' : 's'}`}, within the 15 minutes Discord gives me to answer): ask for a shorter span with \`since:\`.`;
}

/** The conversation a place's catch-up runs are recorded in (made on first use): `/steps` finds them by its channel. */
function catchUpConversation(context: CommandContext, ask: CatchUpAsk) {
  const channel = ask.channel;
  const thread = channel.isThread() ? channel : null;
  return context.store.conversations.ensure({
    key: catchUpConversationKey(channel.id),
    title: `/summarize in ${thread ? thread.name : 'name' in channel && channel.name ? `#${channel.name}` : 'a DM'}`,
    guildId: ask.guildId,
    channelId: thread ? thread.parentId : channel.id,
    threadId: thread ? thread.id : null,
    startedById: null,
    startedByName: null,
  });
}

/**
 * The seat before posting, as a run's answer passes it (src/discord/runs/before-post.ts): dropped
 * when its run went meanwhile (a forget of someone it read), held back when the answer's content
 * check flags it, else posted.
 */
async function screenAndPost(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  ask: CatchUpAsk,
  words: { runId: string; screen: AnswerScreen | null; text: string },
): Promise<void> {
  const answer = { answer: words.text, tools_used: [] };
  const verdict = await beforePost(context, { runId: words.runId, answer, shown: null, screen: words.screen });
  if (verdict.kind === 'drop')
    return void (await interaction.editReply({
      content: forgottenMeanwhile,
      allowedMentions: noPings,
    }));
  await post(interaction, ask, verdict.kind === 'hold' ? verdict.text : words.text);
}

/** The summary with its citations as checked jump links, its header, the threads started, and where it was cut. */
function withLinks(summary: string, ask: CatchUpAsk, history: History): string {
  const links = history.messages.map((message) => messageLink(ask.guildId, ask.channel.id, message.id));
  const cited = linkCitations(summary, links);
  const checked = keepReadLinks(cited.text, new Set(history.messages.map((message) => message.id)));
  const threads = history.threads.map(
    (thread) => `- ${escapeMarkdown(thread.name)}: https://discord.com/channels/${ask.guildId ?? '@me'}/${thread.id}`,
  );
  return [
    `**${countOf(history.messages.length, 'message')} ${spanWords(ask, history)}**`,
    ...(history.cut
      ? [
          `-# Cut at the newest ${countOf(history.messages.length, 'message')} (SUMMARIZE_MAX_MESSAGES): older ones were not read.`,
        ]
      : []),
    checked.text,
    ...(threads.length > 0 ? ['**Threads started**', ...threads] : []),
  ].join('\n');
}

/** The span in words: since a time, a message, or the asker's last message. */
function spanWords(ask: CatchUpAsk, history: History): string {
  if (history.since !== null) return `since <t:${Math.floor(history.since / 1000)}:f>`;
  return ask.since.kind === 'message' ? 'from the message linked on' : 'since your last message here';
}

/** Posted in pieces of 2,000 characters: the first fills the deferred reply, the rest follow it, as private as it. */
async function post(interaction: ChatInputCommandInteraction, ask: CatchUpAsk, text: string): Promise<void> {
  const [first, ...rest] = splitMessage(text);
  await interaction.editReply({ content: first ?? '', allowedMentions: noPings, flags: MessageFlags.SuppressEmbeds });
  for (const piece of rest)
    await interaction.followUp({
      content: piece,
      allowedMentions: noPings,
      flags: ask.isPublic ? MessageFlags.SuppressEmbeds : MessageFlags.SuppressEmbeds | MessageFlags.Ephemeral,
    });
}
