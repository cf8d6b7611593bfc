/**
 * The answer shown in Discord as the model writes it. The first message is posted once there is a
 * sentence, or after a second of text; then it is edited as the answer grows, at most once a second
 * (Discord limits edits; a 429 makes discord.js wait, and the next edit carries all the text since).
 * Past 2,000 characters the text goes on in a new message, cut as a whole answer is (an open code
 * fence is closed in one message and reopened in the next); past `maxAnswerChars` it is cut with
 * the whole answer's note, so that a model that writes on and on (or is told to repeat something
 * forever) fills no more messages than a whole answer does. At the end the messages are edited into
 * exactly the answer as it would have been posted whole, or removed when there is no answer.
 *
 * One Discord call at a time, in order: the text shown never goes back.
 */
import type { Message } from 'discord.js';
import type { Logger } from '../../agent/logger.ts';
import { describeDiscordError } from '../discord-errors.ts';
import type { PostTarget, TargetToBe } from '../outbound/posting-channel.ts';
import { cutAnswer } from '../../posts/render.ts';
import { noPings, sendPieces } from '../outbound/send.ts';
import { splitMessage } from '../../posts/split-message.ts';

export interface LiveAnswerOptions {
  runId: string;
  /** Each message posted, as soon as it is (to be recorded with the run). */
  onPosted(messageId: string): void;
  /** A message's text, just before it is posted (to find it if the process dies before `onPosted`). */
  onPosting?(content: string): void;
  logger: Logger;
  /** The least time between two edits of the answer, and before the first post without a sentence. */
  intervalMs?: number;
  /**
   * Whether the answer so far may be shown (a content check of what it adds, answer-screen.ts):
   * asked before each edit; once it says no, nothing more is shown.
   */
  allows?: (text: string) => Promise<boolean>;
  /** The seed of its messages' nonces (`<runId>:live` by default); another use of the pacing needs its own. */
  nonceSeed?: string;
  /** Posts its messages without link previews. */
  suppressEmbeds?: boolean;
  /**
   * Whether a sentence brings the first post forward (true by default: an answer's first words). Off,
   * the first post waits `intervalMs` after the first text (a quick tool's progress is never shown).
   */
  postAtSentence?: boolean;
}

/** A sentence ended, or a line: enough to show. */
const sentenceEnd = /[.!?…。](\s|$)|\n/;

export class LiveAnswer {
  private readonly messages: Message[] = [];
  private latest = '';
  private shownText = '';
  private firstTextAt: number | null = null;
  private lastFlushAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private timerDue = 0;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  /** `target`: where the answer is shown, and what its first message replies to (known once its thread is made). */
  constructor(
    private readonly target: TargetToBe,
    private readonly options: LiveAnswerOptions,
  ) {}

  /**
   * The messages an answer was being shown in when its run was cut off (a crash, a shutdown), to be
   * edited into the answer or removed. Those that are gone are left out.
   */
  static async resume(target: PostTarget, messageIds: readonly string[], options: LiveAnswerOptions) {
    const live = new LiveAnswer(target, options);
    const { channel } = target;
    for (const id of messageIds) {
      const message = await channel.messages.fetch(id).catch(() => null);
      if (message) live.messages.push(message);
    }
    live.shownText = live.messages.map((message) => message.content).join('');
    return live;
  }

  /** Whether any of the answer was posted. */
  get started(): boolean {
    return this.messages.length > 0;
  }

  /** The messages it shows the answer in, in order. */
  get messageIds(): string[] {
    return this.messages.map((message) => message.id);
  }

  /** The answer as last shown in Discord. */
  get shown(): string {
    return this.shownText;
  }

  /** The answer so far (all of it, each time); shown when the pace allows. */
  show(text: string): void {
    if (this.closed || text === this.latest) return;
    this.latest = text;
    const now = Date.now();
    this.firstTextAt ??= now;
    const interval = this.options.intervalMs ?? 1000;
    // Paced from the last flush (the first post counts from when it was sent, not from its answer).
    const flushed = this.lastFlushAt > 0;
    const soon = this.options.postAtSentence !== false && sentenceEnd.test(text);
    const due = flushed ? this.lastFlushAt + interval : soon ? now : this.firstTextAt + interval;
    // A flush due by then will carry this text too; a first sentence brings the first post forward.
    if (this.timer && this.timerDue <= due) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.lastFlushAt = Date.now();
        this.enqueue(() => this.displayAllowed(this.latest));
      },
      Math.max(0, due - now),
    );
  }

  /** Shows nothing more as the answer grows, and resolves once what was under way is shown. */
  async close(): Promise<void> {
    this.stop();
    await this.chain;
  }

  /** Edits the messages into `text`, posting more or removing some as it needs; shows nothing more after. */
  async finish(text: string): Promise<void> {
    this.stop();
    this.enqueue(() => this.display(text));
    await this.chain;
  }

  /** Removes what was shown (no answer came of it); shows nothing more after. */
  async abandon(): Promise<void> {
    this.stop();
    this.enqueue(async () => {
      for (const message of this.messages.splice(0)) {
        await message
          .delete()
          .catch((error: unknown) =>
            this.options.logger.warn(
              { err: error, messageId: message.id, cause: describeDiscordError(error) },
              'could not remove the unfinished answer',
            ),
          );
      }
      this.shownText = '';
    });
    await this.chain;
  }

  private stop(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Runs `task` after the Discord calls before it; a failure of a live update is logged, not thrown. */
  private enqueue(task: () => Promise<void>): void {
    const final = this.closed;
    this.chain = this.chain.then(task).catch((error: unknown) => {
      if (final) throw error; // The last edit's failure is the delivery's to report.
      this.options.logger.warn(
        { err: error, runId: this.options.runId, cause: describeDiscordError(error) },
        'could not update the answer shown so far',
      );
    });
  }

  /** Shows the answer so far, once `allows` lets it (it is checked before any of it is shown). */
  private async displayAllowed(text: string): Promise<void> {
    if (this.options.allows && !(await this.options.allows(text))) return this.stop();
    await this.display(closeOpenFence(cutAnswer(text)));
  }

  /** Makes the messages show `text`: edits those whose piece changed, posts the pieces beyond them, removes the rest. */
  private async display(text: string): Promise<void> {
    const pieces = text === '' ? [] : splitMessage(text);
    for (const [index, content] of pieces.entries()) {
      const message = this.messages[index];
      if (!message) {
        this.options.onPosting?.(content);
        const { channel, replyTo } = await this.target;
        const [posted] = await sendPieces(channel, [{ index, content }], {
          replyTo,
          // Not the whole answer's nonces: a post of the whole answer must not be taken for one of these.
          nonceSeed: this.options.nonceSeed ?? `${this.options.runId}:live`,
          suppressEmbeds: this.options.suppressEmbeds ?? false,
          onSent: (messageId) => this.options.onPosted(messageId),
        });
        // Discord hands back the message an earlier post with this nonce made (a process killed
        // before it heard of it): that one is edited into this text.
        this.messages.push(
          posted!.content === content ? posted! : await posted!.edit({ content, allowedMentions: noPings }),
        );
      } else if (message.content !== content) {
        this.messages[index] = await message.edit({ content, allowedMentions: noPings });
      }
    }
    for (const surplus of this.messages.splice(pieces.length)) await surplus.delete();
    this.shownText = text;
  }
}

/** Text cut off inside a code block, closed so that it renders as one while the rest is on its way. */
function closeOpenFence(text: string): string {
  const fences = text.split('\n').filter((line) => /^ {0,3}(`{3,}|~{3,})/.test(line)).length;
  return fences % 2 === 1 ? `${text}\n\`\`\`` : text;
}
