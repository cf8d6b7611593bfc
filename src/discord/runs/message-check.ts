/**
 * Each new message checked before the model sees it (CONTENT_CHECK, unless its place switched
 * checks off). Comes from: the seat before the model (before-model.ts), with a batch of new messages
 * about to be answered. Does: one
 * check per message (text and images), in parallel; a flagged message is recorded (content_flags:
 * the window leaves it out for good) and its author told, in a reply, that it was not answered; an
 * outage refused (CONTENT_CHECK_ON_ERROR=refuse) is told too. Goes to: the run, with the messages
 * that passed.
 */
import type { ConversationRow } from '../../../db/conversations.ts';
import type { MessageWork } from '../../conversation/queued-work.ts';
import { checkedPlace, type ContentChecks } from '../../content-check/content-checks.ts';
import { dataUrl } from '../../agent/messages.ts';
import { threadName } from '../../posts/render.ts';
import type { BotServices } from '../bot-services.ts';
import { describeDiscordError } from '../discord-errors.ts';
import { sendText } from '../outbound/send.ts';

/** What the person is told of a message not answered, by why. */
export const messageNotAnswered = {
  flagged: 'I did not answer this message: a content check flagged it.',
  unavailable: 'I could not answer this message: the content check is not available right now. Please try again later.',
} as const;

type CheckServices = Pick<BotServices, 'store' | 'client' | 'logger'>;

/** The messages of the batch that may be answered (all of them when nothing is checked here: `checks` null). */
export async function checkNewMessages(
  deps: CheckServices,
  conversation: ConversationRow,
  messages: readonly MessageWork[],
  checks: ContentChecks | null,
  tell: TellAuthor = (work, text) => replyInChannel(deps, work, text),
): Promise<MessageWork[]> {
  if (!checks) return [...messages];
  const kept = await Promise.all(messages.map((work) => checkOne(deps, checks, conversation, work, tell)));
  return messages.filter((_, index) => kept[index]);
}

/** Whether one message may be answered; told when not (once: a message flagged before stays silent). */
async function checkOne(
  deps: CheckServices,
  checks: ContentChecks,
  conversation: ConversationRow,
  work: MessageWork,
  tell: TellAuthor,
): Promise<boolean> {
  const { store } = deps;
  // Flagged before a restart: queued again as unanswered, and left unanswered, without a second reply.
  if (store.contentFlags.questionFlagged(work.storedId)) return false;
  const row = store.messages.byId(work.storedId);
  if (!row) return false; // Deleted while it waited.
  const images = row.discord_message_id
    ? store.images
        .ofDiscordMessage(row.discord_message_id)
        .map((image) => dataUrl(image.mediaType, image.bytes.toString('base64')))
    : [];
  const result = await checks.screen(
    { target: 'question', text: row.content, images },
    checkedPlace(conversation, null, row.id),
  );
  if (result.show) return true;
  await tell(work, messageNotAnswered[result.because]);
  if (result.because === 'flagged' && row.discord_message_id === conversation.thread_id)
    await renameThread(deps, conversation, work);
  return false;
}

/**
 * A thread started from a flagged message is named by its words, which the model is told as the
 * place: it takes a plain name instead ("Chat with Ada"), here and in Discord.
 */
async function renameThread(deps: CheckServices, conversation: ConversationRow, work: MessageWork): Promise<void> {
  const name = threadName('', work.requester.displayName);
  deps.store.conversations.setTitle(conversation.id, name);
  try {
    await work.placeReady;
    const thread = await deps.client.channels.fetch(conversation.thread_id!);
    if (thread?.isThread()) await thread.setName(name);
  } catch (error) {
    deps.logger.warn(
      { err: error, threadId: conversation.thread_id, cause: describeDiscordError(error) },
      'could not rename the thread of a flagged message',
    );
  }
}

/**
 * How a message's author is told it was not answered: by default a reply to it where it was posted;
 * a question asked through an interaction is told in that interaction's reply.
 */
export type TellAuthor = (work: MessageWork, text: string) => Promise<void>;

/** Replies to the message where it was posted; a failure is logged (the message stays stored either way). */
async function replyInChannel(deps: CheckServices, work: MessageWork, text: string): Promise<void> {
  try {
    const channel = await deps.client.channels.fetch(work.messageChannelId);
    if (!channel?.isSendable()) throw new Error('the channel cannot be posted in');
    await sendText(channel, text, { replyTo: work.messageId, nonceSeed: `${work.messageId}:content-check` });
  } catch (error) {
    deps.logger.warn(
      { err: error, messageId: work.messageId, cause: describeDiscordError(error) },
      'could not say that a message was not answered',
    );
  }
}
