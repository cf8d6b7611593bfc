/**
 * `/knowledge add` (a file or a URL) and `/knowledge add-pins` (a channel's pinned messages): read,
 * extracted, added, the embedding's progress in the private reply, refusals said plainly. A file
 * is never posted anywhere (it may be a server's internal document, and the channel the command
 * was used in is not where it was meant to be read): it has no link, and an answer citing it names
 * it by its title (`knowledge:<id>`, src/agent/checked-sources.ts). An uploaded option's own URL
 * expires, so it is not kept either.
 */
import { type ChatInputCommandInteraction, MessageFlags, PermissionFlagsBits } from 'discord.js';
import type { ExtractedDocument } from '../src/knowledge/extract-text.ts';
import type { KnowledgeSource } from '../src/knowledge/knowledge-base.ts';
import type { CommandContext } from '../src/discord/interactions/command-context.ts';
import {
  knowledgeScope,
  nameAChannel,
  replaceRefusal,
  scopeWords,
} from '../src/discord/interactions/knowledge-scope.ts';
import { addDocument, addMessage } from '../src/discord/knowledge/knowledge-additions.ts';
import { readAttachment, readPage } from '../src/discord/knowledge/knowledge-intake.ts';
import { messageSource } from '../src/discord/knowledge/message-documents.ts';
import { pinnedMessages } from '../src/discord/knowledge/pinned-messages.ts';
import { noPings } from '../src/discord/outbound/send.ts';
import { escapeMarkdown } from '../src/text/markdown.ts';
import { truncate, truncateLine } from '../src/text/truncate.ts';
import { privately } from './shared.ts';

type Interaction = ChatInputCommandInteraction<'cached'>;

/** The scope asked for (`channel:`), if the member may change it; else why not. */
function scopeAsked(interaction: Interaction, context: CommandContext) {
  const channelId = interaction.options.getChannel('channel')?.id ?? null;
  return knowledgeScope(interaction, context.moderatorRoleIds, channelId, nameAChannel);
}

export async function addFileOrPage(interaction: Interaction, context: CommandContext): Promise<void> {
  const scope = scopeAsked(interaction, context);
  if (typeof scope === 'string') return privately(interaction, scope);
  const file = interaction.options.getAttachment('file');
  const url = interaction.options.getString('url')?.trim() || null;
  if ((file === null) === (url === null)) return privately(interaction, 'Give one `file:` or one `url:`.');
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const { base, intake } = context.knowledge;
  const request = (source: KnowledgeSource, document: ExtractedDocument) => ({
    guildId: interaction.guildId,
    channelId: scope.channelId,
    source,
    addedBy: interaction.user.id,
    // A file or a page is the server's, not a member's words.
    authorId: null,
    document,
  });
  const show = (line: string) => interaction.editReply({ content: line, allowedMentions: noPings });
  if (url !== null) {
    const page = await readPage(url, intake);
    if ('refused' in page) return void (await show(`I did not add ${truncateLine(url, 200)}: ${page.message}`));
    const source: KnowledgeSource = { kind: 'url', key: `url:${page.url}`, title: pageTitle(page), link: page.url };
    const refusal = replaceRefusal(interaction, context.moderatorRoleIds, base, source);
    if (refusal !== null) return void (await show(refusal));
    return void (await show((await addDocument(base, request(source, page.document), show)).sentence));
  }
  // Checked before the file is read: its key is its name.
  const fileSource: KnowledgeSource = { kind: 'file', key: `file:${file!.name}`, title: file!.name, link: null };
  const refusal = replaceRefusal(interaction, context.moderatorRoleIds, base, fileSource);
  if (refusal !== null) return void (await show(refusal));
  const read = await readAttachment(file!, intake);
  if ('refused' in read) return void (await show(`I did not add ${truncateLine(file!.name, 100)}: ${read.message}`));
  await show(`Adding **${escapeMarkdown(truncateLine(file!.name, 100))}**…`);
  const source: KnowledgeSource = { ...fileSource, title: read.document.title || file!.name };
  await show((await addDocument(base, request(source, read.document), show)).sentence);
}

/** A page's title: the one it gives, else its address. */
const pageTitle = (page: { document: ExtractedDocument; url: string }) =>
  truncateLine(page.document.title.trim() || page.url, 200);

/** `/knowledge add-pins channel: [only_there:]`: each pinned message a document of its own, kept in step with its edits. */
export async function addPins(interaction: Interaction, context: CommandContext): Promise<void> {
  const channel = interaction.options.getChannel('channel', true);
  const scope = knowledgeScope(
    interaction,
    context.moderatorRoleIds,
    interaction.options.getBoolean('only_there') ? channel.id : null,
    '`only_there: True` keeps the pins for that channel alone, if you moderate it',
  );
  if (typeof scope === 'string') return privately(interaction, scope);
  const pinsChannel = interaction.guild.channels.cache.get(channel.id);
  if (!pinsChannel?.isTextBased() || !('messages' in pinsChannel))
    return privately(interaction, 'I cannot read that channel.');
  // The member's own view: nothing they could not read themselves.
  if (!pinsChannel.permissionsFor(interaction.member).has(PermissionFlagsBits.ReadMessageHistory))
    return privately(interaction, 'You cannot read the history of that channel, so I will not take its pins for you.');
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const show = (line: string) => interaction.editReply({ content: line, allowedMentions: noPings });
  const pins = await pinnedMessages(pinsChannel);
  if (pins.length === 0) return void (await show(`<#${channel.id}> has no pinned messages.`));
  const added: string[] = [];
  const refused: string[] = [];
  // The count of pins is the progress: one edit a second at most (a reply edited per pin would wait on Discord's limits).
  let shownAt = -Infinity;
  const quiet = async () => undefined;
  for (const [index, message] of pins.entries()) {
    if (performance.now() - shownAt >= 1000) {
      shownAt = performance.now();
      await show(`Adding the pins of <#${channel.id}>: ${index + 1} of ${pins.length}…`);
    }
    const refusal = replaceRefusal(
      interaction,
      context.moderatorRoleIds,
      context.knowledge.base,
      messageSource(message),
    );
    const outcome =
      refusal === null
        ? await addMessage(message, scope.channelId, interaction.user.id, context.knowledge, quiet)
        : { added: false, sentence: refusal };
    (outcome.added ? added : refused).push(outcome.sentence);
  }
  const summary = `Pins of <#${channel.id}> in the knowledge of ${scopeWords(scope.channelId)}: ${added.length} added${refused.length > 0 ? `, ${refused.length} not` : ''}.`;
  await show(truncate([summary, ...refused.map((line) => `- ${line}`)].join('\n'), 1900));
}
