/**
 * A tool's request for input while it runs (an MCP server's elicitation): the port (`AskInput`) a
 * run in Discord gives the agent, a question (open-question.ts) as the destructive-tool confirmation is.
 * A modal can only answer an interaction, so the bot first posts "<tool> needs your input" with a
 * button only the person whose message started the run can press (anyone else is told so,
 * privately); it opens the form built from the request, or shows a link privately. Decline, no
 * answer within TOOL_CONFIRM_SECONDS, or the call ending, answer the tool too.
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-response-object-interaction-callback-type (9: MODAL)
 */
import {
  ActionRowBuilder,
  ButtonBuilder,
  type ButtonInteraction,
  ButtonStyle,
  type Interaction,
  MessageFlags,
  type ModalSubmitInteraction,
  type SendableChannels,
} from 'discord.js';
import type { Logger } from '../../agent/logger.ts';
import type { AskInput, InputOutcome, InputRequest } from '../../agent/tool.ts';
import { formatTimeLimit } from '../../text/duration.ts';
import { truncate } from '../../text/truncate.ts';
import { noPings } from '../outbound/send.ts';
import { inputModal, maxModalFields, readInputForm } from './input-form.ts';
import { askQuestion, type CloseQuestion, closeStalePress } from './open-question.ts';

/** The custom ids: buttons `tool-input:<id>:open|decline`, the form `tool-input:<id>`. */
const prefix = 'tool-input:';
/** Room for the tool's words in the post (Discord's 2,000 characters, less the words around them). */
const maxShownMessage = 1_500;

type Press = ButtonInteraction | ModalSubmitInteraction;

interface Question {
  askerId: string;
  request: InputRequest;
  close: CloseQuestion<InputOutcome>;
}

/** The requests waiting for an answer, by id; their buttons' presses and forms come here. */
export class ToolInputRequests {
  private readonly open = new Map<string, Question>();

  constructor(private readonly logger: Logger) {}

  /** Routes the presses of these buttons and the submissions of these forms here, every other interaction to `next`. */
  routeInteractions(next: (interaction: Interaction) => Promise<void>): (interaction: Interaction) => Promise<void> {
    return async (interaction) => {
      if (interaction.isButton() && interaction.customId.startsWith(prefix)) return this.press(interaction);
      if (interaction.isModalSubmit() && interaction.customId.startsWith(prefix)) return this.submit(interaction);
      return next(interaction);
    };
  }

  /** The port for one run: requests are posted in `channel` and wait `timeoutMs` at most. */
  port(options: { channel: () => Promise<SendableChannels>; timeoutMs: number }): AskInput {
    return async (request) => this.ask(await options.channel(), request, options.timeoutMs);
  }

  /** The question a press or form is for, if it is still open and theirs; otherwise they are told, privately. */
  private async questionFor(interaction: Press): Promise<[string, Question] | null> {
    const id = interaction.customId.slice(prefix.length).split(':')[0] ?? '';
    const question = this.open.get(id);
    const privately = (content: string) =>
      interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: noPings });
    const closed =
      'This request is closed: it was answered, or I was restarted since (I ask again if I still need to).';
    if (!question) await (interaction.isButton() ? closeStalePress(interaction, closed) : privately(closed));
    else if (interaction.user.id !== question.askerId)
      await privately('Only the person who asked can answer this request.');
    else return [id, question];
    return null;
  }

  private async press(interaction: ButtonInteraction): Promise<void> {
    const found = await this.questionFor(interaction);
    if (!found) return;
    const [id, question] = found;
    const { form, tool } = question.request;
    const name = displayName(interaction);
    if (interaction.customId.endsWith(':decline'))
      return question.close({ action: 'decline' }, `✖️ Declined by ${name}`, (edit) => interaction.update(edit));
    if (form.kind === 'form') return interaction.showModal(inputModal(`${prefix}${id}`, tool, form.fields) as never);
    await interaction.reply({
      content: `Here is the link **${tool}** asked you to open: ${form.url}\nOpen it only if you trust it.`,
      flags: MessageFlags.Ephemeral,
      allowedMentions: noPings,
    });
    await question.close({ action: 'accept' }, `🔗 ${name} was given the link`);
  }

  private async submit(interaction: ModalSubmitInteraction): Promise<void> {
    const found = await this.questionFor(interaction);
    if (!found) return;
    const [, question] = found;
    const { form } = question.request;
    if (form.kind !== 'form') return;
    const texts = form.fields.map((_field, index) => interaction.fields.getTextInputValue(String(index)));
    const read = readInputForm(form.fields, texts);
    if ('problems' in read)
      return void (await interaction.reply({
        content: `Not sent:\n- ${read.problems.join('\n- ')}\nPress **Fill in** again.`,
        flags: MessageFlags.Ephemeral,
        allowedMentions: noPings,
      }));
    const fields = form.fields.map((field) => field.name).join(', ');
    await question.close(
      { action: 'accept', content: read.content },
      `✅ ${displayName(interaction)} answered (${fields})`,
      // A form sent from the post's button may update that post, as a press of the button may.
      interaction.isFromMessage() ? (edit) => interaction.update(edit) : undefined,
    );
  }

  /** Posts the request and resolves with its answer, its timeout, or its withdrawal when the call ends. */
  private ask(channel: SendableChannels, request: InputRequest, timeoutMs: number): Promise<InputOutcome> {
    const { tool, requester, signal, form } = request;
    if (request.unanswerable !== undefined)
      return this.declined(
        channel,
        request,
        `**${tool}** asked **${requester.displayName}** for input, but ${request.unanswerable}: it was declined.`,
      );
    if (form.kind === 'form' && form.fields.length > maxModalFields)
      return this.declined(
        channel,
        request,
        `**${tool}** asked **${requester.displayName}** for ${form.fields.length} answers at once; a Discord form holds ${maxModalFields}, so the request was declined.`,
      );
    const wait = formatTimeLimit(timeoutMs);
    return askQuestion<InputOutcome>({
      channel,
      logger: this.logger,
      tool,
      signal,
      timeoutMs,
      content: `📝 **${requester.displayName}**, **${tool}** needs your input:\n>>> ${truncate(request.message, maxShownMessage)}\n\nAnswer within ${wait}, or it goes unanswered.`,
      buttons: (id) => buttons(id, form.kind),
      opened: (id, close) => this.open.set(id, { askerId: requester.id, request, close }),
      closed: (id) => this.open.delete(id),
      withdrawn: { outcome: { action: 'cancel' }, shown: '✖️ The call ended: no longer asked' },
      timedOut: { outcome: { action: 'cancel' }, shown: `⌛ Not answered within ${wait}` },
      unposted: { action: 'cancel' },
    });
  }

  /** A request that cannot be put to the person (a form longer than a modal holds, say): they are told, and it is declined. */
  private async declined(channel: SendableChannels, request: InputRequest, content: string): Promise<InputOutcome> {
    await channel
      .send({ content, allowedMentions: noPings })
      .catch((error: unknown) =>
        this.logger.warn({ err: error, tool: request.tool }, 'could not post a declined input request'),
      );
    return { action: 'decline' };
  }
}

function displayName(interaction: Press): string {
  return interaction.inCachedGuild() ? interaction.member.displayName : interaction.user.displayName;
}

function buttons(id: string, kind: 'form' | 'url'): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder()
      .setCustomId(`${prefix}${id}:open`)
      .setLabel(kind === 'form' ? 'Fill in' : 'Show the link')
      .setStyle(ButtonStyle.Primary),
    new ButtonBuilder().setCustomId(`${prefix}${id}:decline`).setLabel('Decline').setStyle(ButtonStyle.Secondary),
  );
}
