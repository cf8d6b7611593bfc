/**
 * Where a run's posts go when the bot may only answer the interaction that asked (a user-installed
 * app used where no server added the bot): the deferred reply is one card, edited as the run goes
 * (its tool steps, the answer as it is written), then it holds the answer, with what does not fit
 * in at most `followUpLimit` follow-ups. Comes from: interaction-run.ts, which runs the agent and
 * gives this its events' text. Nothing is posted in the channel: the bot cannot post there.
 */
import type {
  ChatInputCommandInteraction,
  MessageContextMenuCommandInteraction,
  ModalSubmitInteraction,
} from 'discord.js';
import type { Logger } from '../../agent/logger.ts';
import { discordMessageLimit, splitMessage } from '../../posts/split-message.ts';
import { truncate } from '../../text/truncate.ts';
import { noPings } from '../outbound/send.ts';

/** A command (or its form) the bot answers through its interaction: deferred already. */
export type AnsweredInteraction =
  | ChatInputCommandInteraction
  | MessageContextMenuCommandInteraction
  | ModalSubmitInteraction;

/**
 * The most follow-ups one interaction may have when the person's own install authorised it and the
 * server did not add the app: Discord answers the sixth with 400, code 40094 "This interaction has
 * hit the maximum number of follow up messages". Editing the reply does not count.
 * https://discord.com/developers/docs/interactions/receiving-and-responding#create-followup-message
 * https://discord.com/developers/docs/change-log#userinstalled-apps-general-availability (2024-06-27)
 */
export const followUpLimit = 5;

/** How much of the card the tool steps may take; the answer as it is written has the rest. */
const stepsShare = 800;

/** The deferred reply of an interaction, edited as one card while its run goes, then its answer. */
export class InteractionCard {
  private readonly steps: string[] = [];
  private live = '';
  private shown: string | null = null;
  private wanted: string | null = null;
  private editing: Promise<void> | null = null;
  private closed = false;
  private failed = false;

  constructor(
    private readonly interaction: AnsweredInteraction,
    private readonly logger: Logger,
  ) {}

  get interactionId(): string {
    return this.interaction.id;
  }

  /** What the live answer showed, or null when it showed nothing. */
  get liveShown(): string | null {
    return this.live === '' ? null : this.live;
  }

  /** A model turn's tool calls, as the tool posts would show them. */
  addSteps(text: string): void {
    this.steps.push(text);
    this.update();
  }

  /** The answer as it is written so far (STREAM_ANSWERS). */
  showLive(text: string): void {
    this.live = text;
    this.update();
  }

  /** A notice that stands for the card until the run goes on (the model's rate limit). */
  async tell(text: string): Promise<void> {
    this.wanted = truncate(text, discordMessageLimit);
    await this.kick();
  }

  /**
   * The card becomes the answer: its first piece in the reply, the rest in follow-ups. Past the
   * follow-ups Discord allows, the last one carries the rest of the answer as a file.
   */
  async finish(text: string): Promise<void> {
    this.closed = true;
    await this.editing;
    const pieces = splitMessage(text);
    await this.interaction.editReply({ content: pieces[0] ?? '…', allowedMentions: noPings });
    const rest = pieces.slice(1);
    for (const [index, piece] of rest.entries()) {
      if (index === followUpLimit - 1 && rest.length > followUpLimit) {
        await this.interaction.followUp({
          content: '-# The rest of the answer is in this file: Discord lets me send only a few messages here.',
          files: [{ attachment: Buffer.from(rest.slice(index).join('\n')), name: 'answer.md' }],
          allowedMentions: noPings,
        });
        return;
      }
      await this.interaction.followUp({ content: piece, allowedMentions: noPings });
    }
  }

  /** Waits for the edit under way, if any. */
  async settle(): Promise<void> {
    await this.editing;
  }

  /** The card's text: the latest tool steps, then the tail of the answer as it is written. */
  private render(): string {
    const steps = truncateFromStart(this.steps.join('\n'), stepsShare);
    const room = discordMessageLimit - steps.length - 4;
    const live = this.live === '' ? '' : truncateFromStart(this.live, room);
    return [steps, live].filter(Boolean).join('\n\n') || '…';
  }

  /** Edits the card to its newest text: one edit at a time, the newest text when each ends. */
  private update(): void {
    if (this.closed) return;
    this.wanted = this.render();
    void this.kick();
  }

  /** Starts editing unless an edit is under way (which takes the newest text when it ends). */
  private kick(): Promise<void> {
    this.editing ??= this.drain().finally(() => {
      this.editing = null;
      // Text that came while the last edit's promise settled.
      if (!this.failed && !this.closed && this.wanted !== null && this.wanted !== this.shown) void this.kick();
    });
    return this.editing;
  }

  private async drain(): Promise<void> {
    try {
      while (!this.failed && this.wanted !== null && this.wanted !== this.shown) {
        const text = this.wanted;
        await this.interaction.editReply({ content: text, allowedMentions: noPings });
        this.shown = text;
      }
    } catch (error) {
      // The card stays as it was; the answer still tries its own edit at the end.
      this.failed = true;
      this.logger.warn({ err: error, interactionId: this.interaction.id }, 'could not edit the interaction card');
    }
  }
}

/** The end of `text` within `limit` characters, marked as cut where it was. */
function truncateFromStart(text: string, limit: number): string {
  return text.length <= limit ? text : `…${text.slice(text.length - limit + 1)}`;
}
