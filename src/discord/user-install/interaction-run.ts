/**
 * A question asked through the app a person installed to their own account, where the bot is not
 * in the place (USER_INSTALL, docs/user-install.md): it may only answer the interaction, for the 15
 * minutes its token lasts. Comes from: `/ask` and "Ask about this message" (commands/), deferred
 * already, within the person's limits. Does: the person's conversation in the place (keyed to both,
 * no server's settings: `userInstallServerId`), the seat before the model, the daily budget of
 * user-installed use at the model's turn, the run with moderator-only tools and tools that need a
 * confirmation left out, under a deadline shorter than the token's, then the seat before posting.
 * Goes to: the interaction's card (interaction-card.ts), never a channel.
 */
import { randomUUID } from 'node:crypto';
import { InteractionContextType } from 'discord.js';
import type { ConversationRow } from '../../../db/conversations.ts';
import { userInstallServerId } from '../../../db/conversations.ts';
import { deadline } from '../../agent/deadline.ts';
import type { AgentEvent, AgentEventSink } from '../../agent/events.ts';
import type { ModelClient } from '../../agent/model-client.ts';
import type { ConversationPlace } from '../../agent/system-prompt.ts';
import type { Requester, RuntimeTool } from '../../agent/tool.ts';
import { answerScreenOf } from '../../content-check/answer-check.ts';
import { userInstallConversationKey } from '../../conversation/conversation-keys.ts';
import { type RunOutcome, runPlan } from '../../conversation/conversation-run.ts';
import { messageWork } from '../../conversation/queued-work.ts';
import { type PlaceChoice, placeChoice } from '../../place-settings/place-choice.ts';
import { renderAnswer } from '../../posts/render.ts';
import { toolPostSink } from '../../posts/tool-post-sink.ts';
import { logSink } from '../../run-log/log-sink.ts';
import { truncateLine } from '../../text/truncate.ts';
import type { BotServices } from '../bot-services.ts';
import { autoModBlockedCode, describeDiscordError, isDiscordCode } from '../discord-errors.ts';
import { beforeModel } from '../runs/before-model.ts';
import { beforePost } from '../runs/before-post.ts';
import type { LoadedWindow } from '../../memory/conversation-memory.ts';
import { type AnsweredInteraction, InteractionCard } from './interaction-card.ts';

/** What answering through an interaction uses of the bot's services. */
export type InteractionRunServices = Pick<
  BotServices,
  | 'client'
  | 'store'
  | 'memory'
  | 'logger'
  | 'lifecycle'
  | 'limits'
  | 'gates'
  | 'activeRuns'
  | 'forgets'
  | 'discord'
  | 'shutdown'
  | 'runSinks'
  | 'interactionRuns'
  | 'instanceId'
  | 'tools'
  | 'toolServers'
  | 'agent'
  | 'operatorPrompt'
  | 'memberMemory'
  | 'models'
  | 'vision'
  | 'memorySettings'
  | 'contentChecks'
>;

/**
 * How long a run answered through an interaction may take, from the interaction's creation: its
 * token lasts 15 minutes (https://discord.com/developers/docs/interactions/receiving-and-responding#followup-messages);
 * the last two are kept for the notice and the answer's edits and follow-ups.
 */
const interactionRunMs = 13 * 60_000;

/** Said when the run would outlive the interaction's token. */
export const interactionTimeNotice =
  'I stopped: Discord lets me answer a command for 15 minutes only, and this answer would have taken longer. Ask again, maybe a narrower question.';

/** The question of the command: what the model reads, and the asker's name. */
export interface InteractionQuestion {
  prompt: string;
  askerName: string;
}

/**
 * Answers `question` in the deferred reply of `interaction`, in the person's conversation of the
 * place: one run at a time per conversation, each answering its own interaction.
 */
export async function answerThroughInteraction(
  services: InteractionRunServices,
  interaction: AnsweredInteraction,
  question: InteractionQuestion,
): Promise<void> {
  // Commands, and forms opened by them, always come from a channel (a group DM or DM is one too).
  const channelId = interaction.channelId;
  if (channelId === null) throw new Error('an interaction without a channel cannot be answered as a question');
  const key = userInstallConversationKey(interaction.user.id, channelId);
  await services.interactionRuns.run(key, () => answer(services, interaction, { ...question, channelId }, key));
}

async function answer(
  services: InteractionRunServices,
  interaction: AnsweredInteraction,
  question: InteractionQuestion & { channelId: string },
  key: string,
): Promise<void> {
  const { channelId } = question;
  const card = new InteractionCard(interaction, services.logger);
  const conversation = services.store.conversations.ensure({
    key,
    title: truncateLine(question.prompt, 100),
    guildId: userInstallServerId,
    channelId,
    threadId: null,
    startedById: interaction.user.id,
    startedByName: question.askerName,
  });
  await services.memory.ready();
  const requester: Requester = { id: interaction.user.id, displayName: question.askerName, isModerator: false };
  const storedId = services.memory.recordUserMessage(conversation, {
    authorId: requester.id,
    authorName: requester.displayName,
    content: question.prompt,
    discordMessageId: interaction.id,
  });
  if (storedId === null) return; // The same interaction twice.
  const choice = userInstalledChoice(placeChoice(services, conversation));
  const work = messageWork(storedId, { messageId: interaction.id, channelId }, requester);
  // A question the content check stops is told so in the reply (there is no channel to reply in).
  const passed = await beforeModel(services, {
    conversation,
    choice,
    messages: [work],
    resumedFrom: null,
    tellAuthor: (_work, text) =>
      card
        .finish(text)
        .catch((error: unknown) =>
          services.logger.warn(
            { err: error, interactionId: interaction.id },
            'could not say that a message was not answered',
          ),
        ),
  });
  if ('stop' in passed) return;
  const place = placeOf(interaction, requester.displayName);
  const ran = await runUnderDeadline(services, { interaction, conversation, choice, requester, storedId, place }, card);
  if (ran) await deliverToCard(services, card, ran, { choice, conversation, storedId });
}

/**
 * What applies where no server added the bot: the operator's defaults (no server's settings have
 * `userInstallServerId`), without the tools that need a moderator or an asker's Confirm: there is
 * no member to check and no channel for the buttons.
 */
function userInstalledChoice(choice: PlaceChoice): PlaceChoice {
  return {
    ...choice,
    toolAllowed: (tool) => {
      const full = tool as Partial<Pick<RuntimeTool, 'moderatorOnly' | 'needsConfirmation'>>;
      return !full.moderatorOnly && !full.needsConfirmation && choice.toolAllowed(tool);
    },
  };
}

/** Where the run is, as the model should know it: Discord's interaction context. */
function placeOf(interaction: AnsweredInteraction, person: string): ConversationPlace {
  // https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-interaction-context-types
  const where =
    interaction.context === InteractionContextType.BotDM
      ? 'bot-dm'
      : interaction.context === InteractionContextType.PrivateChannel
        ? 'private-channel'
        : 'server';
  return { kind: 'user-install', person, where };
}

interface InteractionPlan {
  interaction: AnsweredInteraction;
  conversation: ConversationRow;
  choice: PlaceChoice;
  requester: Requester;
  storedId: number;
  place: ConversationPlace;
}

/**
 * The run, registered as going on (a `/forget-me` waits for it), admitted under the daily budget
 * at its model's turn, and stopped when the interaction's time is nearly up. Null when it did not
 * run (refused: the card says why; or the bot is shutting down).
 */
async function runUnderDeadline(
  services: InteractionRunServices,
  plan: InteractionPlan,
  card: InteractionCard,
): Promise<Ran | null> {
  const { conversation, choice, requester } = plan;
  const active = services.activeRuns.begin(conversation.key, {
    guildId: userInstallServerId,
    requesterIds: [requester.id],
  });
  const runMs = services.discord.interactionRunMs ?? interactionRunMs;
  const limit = deadline(Math.max(0, plan.interaction.createdTimestamp + runMs - Date.now()), active.stopped);
  let release = () => {};
  try {
    await services.gates.of(choice.modelName).waitForModel(conversation.key, (text) => card.tell(text), limit.signal);
    const turn = choice.model.turn ? await choice.model.turn(limit.signal).catch(() => null) : null;
    if (turn) release = () => turn.release();
    if (services.shutdown.aborted) {
      await card.finish('I am restarting: please ask again in a moment.').catch(() => {});
      return null;
    }
    active.running();
    const verdict = services.limits.admitRun(requester.id, userInstallServerId);
    if (!verdict.ok) {
      await refuse(services, plan, card, verdict.message);
      return null;
    }
    const ran = await run(services, plan, card, turn?.client ?? choice.model, limit.signal);
    const { outcome } = ran;
    if (outcome.kind === 'interrupted')
      services.lifecycle.interrupt(outcome.runId, 'the bot shut down before the run ended');
    if (outcome.kind === 'no-answer' && outcome.status === 'stopped' && limit.expired)
      return { ...ran, outcome: { ...outcome, userMessage: interactionTimeNotice } };
    return ran;
  } finally {
    release();
    limit.dispose();
    active.end();
    active.settled();
  }
}

/**
 * Records a run the daily budget refused at its model's turn (as run-in-discord.ts does), and says so
 * in the card: the interaction is answered every time, so the run is delivered with the notice.
 */
async function refuse(
  services: InteractionRunServices,
  { conversation, storedId, choice }: InteractionPlan,
  card: InteractionCard,
  message: string,
): Promise<void> {
  const runId = randomUUID();
  services.lifecycle.refuse({
    id: runId,
    conversationId: conversation.id,
    instanceId: services.instanceId,
    triggerMessageIds: [storedId],
    model: choice.model.model,
    resumedFrom: null,
    reason: 'the daily token budget is spent',
    told: true,
  });
  services.logger.warn({ runId, conversation: conversation.key }, 'run refused: the daily token budget is spent');
  const delivered = await card.finish(message).then(
    () => 'posted' as const,
    (error: unknown) => {
      services.logger.error(
        { err: error, runId, interactionId: card.interactionId, cause: describeDiscordError(error) },
        'could not answer the interaction',
      );
      return 'post-failed' as const;
    },
  );
  services.lifecycle.deliver(runId, delivered);
}

/** What a run came to, and the messages it answered as the model read them (for the answer's check). */
interface Ran {
  outcome: RunOutcome;
  input: LoadedWindow['input'];
}

/** runPlan with the card's listeners: each model turn's tool calls, and the answer as it is written. */
async function run(
  services: InteractionRunServices,
  plan: InteractionPlan,
  card: InteractionCard,
  model: ModelClient,
  stop: AbortSignal,
): Promise<Ran> {
  const { conversation, choice, requester, storedId } = plan;
  const runId = randomUUID();
  const window = services.memory.loadWindow(conversation.id, [storedId], choice.window);
  const steps = toolPostSink(
    async (text) => card.addSteps(text),
    services.discord.toolPosts === 'off' ? 'off' : 'summary',
    services.logger,
  );
  // Where its answer is checked, the answer is shown once checked: not as it is written.
  const live = services.discord.streamAnswers && !choice.checks;
  const sinks: AgentEventSink[] = [
    logSink(services.logger, { conversation: conversation.key, channelId: plan.interaction.channelId }),
    steps.sink,
    (event: AgentEvent) => {
      if (event.type === 'run-start')
        services.store.runs.setSettingsUsed(event.runId, choice.modelName, choice.personaVersion);
      if (event.type === 'answer-delta' && live) card.showLive(event.text);
    },
    ...services.runSinks,
  ];
  const outcome = await runPlan(
    services,
    {
      conversation,
      place: plan.place,
      channelId: null,
      requesters: [requester],
      ...window,
      triggerIds: [storedId],
      resumedFrom: null,
      calledBefore: [],
      persona: choice.persona,
      toolAllowed: choice.toolAllowed,
      seesImages: choice.seesImages,
      showsImagesToPeople: false,
      memberMemory: choice.memberMemory,
    },
    { runId, model, stop, shutdown: services.shutdown, streamAnswers: live, sinks },
  );
  await steps.flush();
  return { outcome, input: window.input };
}

/** Why a run gave no answer; a stopped one keeps what it had shown as it wrote, with why it stopped. */
function stoppedWhileShown(outcome: RunOutcome & { kind: 'no-answer' | 'context-too-long' }, shown: string | null) {
  if (outcome.kind === 'no-answer' && outcome.status === 'stopped' && shown !== null)
    return `${shown}\n-# ${outcome.userMessage}`;
  return outcome.userMessage;
}

/**
 * The run's words through the seat before posting, into the card; the run recorded as delivered.
 * A run the shutdown cut off is not taken up at the next start (the token may be gone by then): the
 * card says so.
 */
async function deliverToCard(
  services: InteractionRunServices,
  card: InteractionCard,
  { outcome, input }: Ran,
  { choice, conversation, storedId }: Pick<InteractionPlan, 'choice' | 'conversation' | 'storedId'>,
): Promise<void> {
  const { runId } = outcome;
  await card.settle();
  const screen = answerScreenOf(choice.checks, { conversation, input, triggerIds: [storedId] }, runId);
  const answer = outcome.kind === 'answered' ? outcome.answer : null;
  const verdict = await beforePost(services, { runId, answer, shown: card.liveShown, screen });
  const text =
    verdict.kind === 'drop'
      ? 'I have no answer to give: what you asked was forgotten meanwhile.'
      : verdict.kind === 'hold'
        ? verdict.text
        : outcome.kind === 'answered'
          ? renderAnswer(outcome.answer)
          : outcome.kind === 'interrupted'
            ? 'I was restarted before I could answer: please ask again.'
            : stoppedWhileShown(outcome, card.liveShown);
  try {
    await card.finish(text);
    services.lifecycle.deliver(runId, 'posted');
  } catch (error) {
    services.logger.error(
      { err: error, runId, interactionId: card.interactionId, cause: describeDiscordError(error) },
      'could not answer the interaction',
    );
    // The server's AutoMod blocked the words: the card says so rather than stay as it was.
    if (isDiscordCode(error, [autoModBlockedCode])) await card.finish(autoModNotice).catch(() => {});
    services.lifecycle.deliver(runId, 'post-failed');
  }
}

/** Said in the card when the server's AutoMod blocked the answer. */
export const autoModNotice = "This server's AutoMod blocked my answer, so I cannot show it here.";
