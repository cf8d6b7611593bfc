/**
 * Confirm / Cancel before a tool that may change or delete things runs (`needsConfirmation`): the
 * port (`ConfirmTool`) a run in Discord gives the agent. The question is posted where the run posts,
 * with two buttons only the person whose message started the run, or a moderator there, can press
 * (anyone else is told so, privately); no answer within TOOL_CONFIRM_SECONDS cancels, as does the run stopping. The agent
 * waits for the outcome, records it in the step log, and `onDestructiveTool` hears it.
 * https://discord.com/developers/docs/components/reference#button
 */
import {
  ActionRowBuilder,
  ButtonBuilder,
  type ButtonInteraction,
  ButtonStyle,
  type Interaction,
  MessageFlags,
  type SendableChannels,
} from 'discord.js';
import type { Logger } from '../../agent/logger.ts';
import type { ConfirmTool, Requester, ToolConfirmationOutcome, ToolConfirmationRequest } from '../../agent/tool.ts';
import { formatTimeLimit } from '../../text/duration.ts';
import { truncate } from '../../text/truncate.ts';
import { isModerator } from '../interactions/moderation.ts';
import { noPings } from '../outbound/send.ts';
import { askQuestion, closeStalePress } from './open-question.ts';

/**
 * What a destructive call came to, for whoever watches them (a moderators' log channel): the tool,
 * its arguments (JSON), who asked, and whether it was confirmed, cancelled or not answered in time.
 */
export interface DestructiveToolEvent {
  runId: string;
  tool: string;
  arguments: string;
  guildId: string | null;
  /** Where the question was asked (the conversation's thread). */
  channelId: string;
  asker: Requester;
  outcome: ToolConfirmationOutcome;
}

/** The custom ids of the buttons: `tool-confirm:<question id>:confirm|cancel`. */
const prefix = 'tool-confirm:';
/** Room for the arguments in the question (Discord's 2,000 characters, less the words around them). */
const maxShownArguments = 1_500;

interface Question {
  askerId: string;
  /** Where the question was asked: a moderator is judged there, wherever a press comes from. */
  channel: SendableChannels;
  answer(outcome: ToolConfirmationOutcome, press: ButtonInteraction): Promise<void>;
}

/** The questions waiting for an answer, by id; their buttons' presses come here. */
export class ToolConfirmations {
  private readonly open = new Map<string, Question>();

  /** `moderatorRoleIds`: MODERATOR_ROLE_IDS; a moderator of the place may answer for the asker. */
  constructor(
    private readonly logger: Logger,
    private readonly moderatorRoleIds: readonly string[],
  ) {}

  /** Routes the presses of these buttons here, and every other interaction to `next`. */
  routeButtons(next: (interaction: Interaction) => Promise<void>): (interaction: Interaction) => Promise<void> {
    return (interaction) =>
      interaction.isButton() && interaction.customId.startsWith(prefix) ? this.press(interaction) : next(interaction);
  }

  /**
   * The port for one run: questions are posted in `channel`, wait `timeoutMs` at most, and their
   * outcome goes to `onOutcome` too.
   */
  port(options: {
    channel: () => Promise<SendableChannels>;
    timeoutMs: number;
    onOutcome?: (request: ToolConfirmationRequest, outcome: ToolConfirmationOutcome, channelId: string) => void;
  }): ConfirmTool {
    return async (request) => {
      const channel = await options.channel();
      const outcome = await this.ask(channel, request, options.timeoutMs);
      options.onOutcome?.(request, outcome, channel.id);
      return outcome;
    };
  }

  private async press(interaction: ButtonInteraction): Promise<void> {
    const [id, choice] = interaction.customId.slice(prefix.length).split(':');
    const question = this.open.get(id ?? '');
    const privately = (content: string) =>
      interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: noPings });
    if (!question)
      return closeStalePress(
        interaction,
        'This question is closed: it was answered, or I was restarted since (I ask again if I still need to).',
      );
    if (interaction.user.id !== question.askerId && !this.moderatorPressed(interaction, question.channel))
      return void (await privately('Only the person who asked (or a moderator) can confirm or cancel this.'));
    this.open.delete(id!);
    const by = {
      id: interaction.user.id,
      displayName: interaction.inCachedGuild() ? interaction.member.displayName : interaction.user.displayName,
    };
    await question.answer({ decision: choice === 'confirm' ? 'confirmed' : 'cancelled', by }, interaction);
  }

  /**
   * Whether Discord says the presser is a moderator where the question is: the question's channel,
   * not the one the press came from (a copy of its button elsewhere must not borrow that place's
   * powers); checked at the press, never remembered. As the Steps button judges a run's place.
   */
  private moderatorPressed(interaction: ButtonInteraction, asked: SendableChannels): boolean {
    if (!interaction.inCachedGuild() || asked.isDMBased() || asked.guildId !== interaction.guildId) return false;
    return isModerator(interaction.member, asked, this.moderatorRoleIds);
  }

  /** Posts the question and resolves with its answer, its timeout, or its withdrawal when the run stops. */
  private ask(
    channel: SendableChannels,
    request: ToolConfirmationRequest,
    timeoutMs: number,
  ): Promise<ToolConfirmationOutcome> {
    const { tool, requester, signal } = request;
    const wait = formatTimeLimit(timeoutMs);
    return askQuestion<ToolConfirmationOutcome>({
      channel,
      logger: this.logger,
      tool,
      signal,
      timeoutMs,
      content: `⚠️ **${requester.displayName}**, I want to run **${tool}**, which may change or delete things:\n\`\`\`json\n${truncate(request.arguments, maxShownArguments)}\n\`\`\`\nConfirm within ${wait}, or it is cancelled.`,
      buttons,
      opened: (id, close) =>
        this.open.set(id, {
          askerId: requester.id,
          channel,
          answer: (outcome, press) =>
            close(
              outcome,
              `${outcome.decision === 'confirmed' ? '✅ Confirmed' : '✖️ Cancelled'} by ${outcome.by!.displayName}: ${outcome.decision === 'confirmed' ? 'running' : 'not run'}`,
              (edit) => press.update(edit),
            ),
        }),
      closed: (id) => this.open.delete(id),
      withdrawn: { outcome: { decision: 'cancelled', by: null }, shown: '✖️ The run stopped: not run' },
      timedOut: { outcome: { decision: 'timed-out', by: null }, shown: `⌛ Not confirmed within ${wait}: not run` },
      unposted: { decision: 'cancelled', by: null },
    });
  }
}

function buttons(id: string): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId(`${prefix}${id}:confirm`).setLabel('Confirm').setStyle(ButtonStyle.Danger),
    new ButtonBuilder().setCustomId(`${prefix}${id}:cancel`).setLabel('Cancel').setStyle(ButtonStyle.Secondary),
  );
}
