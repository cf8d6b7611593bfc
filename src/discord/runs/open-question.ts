/**
 * A question to the person behind a run, posted with buttons where the run posts: open until it is
 * answered, its time runs out, or its signal withdraws it (the run or the call stopped), whichever
 * comes first, exactly once; then its post is edited to say how it ended, its buttons taken away.
 * The destructive-tool confirmation (tool-confirmation.ts) and a tool's request for input
 * (input-requests.ts) are such questions.
 */
import { randomUUID } from 'node:crypto';
import {
  type ActionRowBuilder,
  type ButtonBuilder,
  type ButtonInteraction,
  type Message,
  MessageFlags,
  type SendableChannels,
} from 'discord.js';
import type { Logger } from '../../agent/logger.ts';
import { noPings } from '../outbound/send.ts';

/** What the post is edited to. */
type Edit = { content: string; components: []; allowedMentions: typeof noPings };

/**
 * Closes the question with `outcome`, its post saying `shown`; `update` answers the press that
 * closed it by editing the post (a button's interaction), else the post is edited directly.
 */
export type CloseQuestion<T> = (outcome: T, shown: string, update?: (edit: Edit) => Promise<unknown>) => Promise<void>;

export interface QuestionOptions<T> {
  channel: SendableChannels;
  logger: Logger;
  /** The tool asked about: named in the closed post and in log lines. */
  tool: string;
  signal: AbortSignal;
  timeoutMs: number;
  content: string;
  buttons: (id: string) => ActionRowBuilder<ButtonBuilder>;
  /** Called with the question's id before it is posted (so that no press comes before it is known), and when it closes. */
  opened: (id: string, close: CloseQuestion<T>) => void;
  closed: (id: string) => void;
  withdrawn: { outcome: T; shown: string };
  timedOut: { outcome: T; shown: string };
  /** The outcome when the question could not be posted. */
  unposted: T;
}

/** Posts the question and resolves with its outcome. */
export async function askQuestion<T>(options: QuestionOptions<T>): Promise<T> {
  const { signal, tool, logger } = options;
  const id = randomUUID();
  let settle!: (outcome: T) => void;
  const decided = new Promise<T>((resolve) => (settle = resolve));
  let message: Message | null = null;
  let timer: NodeJS.Timeout | undefined;
  let isClosed = false;
  const close: CloseQuestion<T> = async (outcome, shown, update) => {
    if (isClosed) return;
    isClosed = true;
    clearTimeout(timer);
    signal.removeEventListener('abort', withdraw);
    options.closed(id);
    settle(outcome);
    const edit: Edit = { content: `${shown} (**${tool}**)`, components: [], allowedMentions: noPings };
    await (update ? update(edit) : message?.edit(edit))?.catch((error: unknown) =>
      logger.warn({ err: error, tool }, 'could not close a question'),
    );
  };
  const withdraw = () => void close(options.withdrawn.outcome, options.withdrawn.shown);
  options.opened(id, close);
  signal.addEventListener('abort', withdraw, { once: true });
  try {
    message = await options.channel.send({
      content: options.content,
      components: [options.buttons(id)],
      allowedMentions: noPings,
    });
  } catch (error) {
    logger.warn({ err: error, tool }, 'could not post a question: it is closed unanswered');
    void close(options.unposted, '');
  }
  if (signal.aborted) withdraw();
  if (!isClosed)
    timer = setTimeout(() => void close(options.timedOut.outcome, options.timedOut.shown), options.timeoutMs);
  return decided;
}

/**
 * A press on a question this process does not hold: one posted before the bot was killed (a bot
 * that stops withdraws its questions, one killed cannot), or answered a moment before. Its buttons
 * are taken away, so that nobody presses them again, and the presser is told why, privately.
 */
export async function closeStalePress(press: ButtonInteraction, why: string): Promise<void> {
  await press.update({ components: [] });
  await press.followUp({ content: why, flags: MessageFlags.Ephemeral, allowedMentions: noPings });
}
