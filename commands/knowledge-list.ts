/**
 * `/knowledge list`, `remove` and `search`: what the server's knowledge holds, taken out, and what
 * the agent's `search_knowledge` would find for a question here. Checked as changes are: the whole
 * server's by its moderators, a channel's by that channel's (src/discord/interactions/knowledge-scope.ts).
 */
import { type ChatInputCommandInteraction, time, TimestampStyles } from 'discord.js';
import type { KnowledgeDocument } from '../src/knowledge/knowledge-base.ts';
import type { CommandContext } from '../src/discord/interactions/command-context.ts';
import { knowledgeScope, nameAChannel, scopeWords } from '../src/discord/interactions/knowledge-scope.ts';
import { splitMessage } from '../src/posts/split-message.ts';
import { passageLines } from '../tools/search-knowledge.ts';
import { escapeMarkdown } from '../src/text/markdown.ts';
import { truncateLine } from '../src/text/truncate.ts';
import { privately } from './shared.ts';

type Interaction = ChatInputCommandInteraction<'cached'>;

/**
 * How a document is searched: by meaning too (its embeddings' model), or by words alone; stale
 * embeddings (another model's, or a failed embedding) are made again at the next start, or once the
 * embedding server answers again after an outage.
 */
function searchedBy(document: KnowledgeDocument): string {
  if (document.embeddingStale)
    return `by words for now: its embeddings${document.embeddingModel ? ` (${document.embeddingModel})` : ''} are to be made again with the model now set, at the next start or once the embedding server answers again`;
  return document.embeddingModel === null ? 'by words' : `by words and meaning (${document.embeddingModel})`;
}

const describe = (document: KnowledgeDocument) => {
  // A title is a page's, a file's or a member's name: escaped, so that it cannot close the link or make one.
  const name = escapeMarkdown(truncateLine(document.source.title, 80));
  const title = document.source.link ? `[${name}](<${document.source.link}>)` : name;
  const passages = `${document.chunks} passage${document.chunks === 1 ? '' : 's'}`;
  const shortDate = (milliseconds: number) => time(Math.floor(milliseconds / 1000), TimestampStyles.ShortDate);
  const updated = document.updatedAt === null ? '' : ` · updated ${shortDate(document.updatedAt)}`;
  return `**${document.id}** · ${title} · ${scopeWords(document.channelId)} · ${passages}, ${searchedBy(document)} · added by <@${document.addedBy}> ${shortDate(document.createdAt)}${updated}`;
};

export async function listKnowledge(interaction: Interaction, context: CommandContext): Promise<void> {
  const channelId = interaction.options.getChannel('channel')?.id ?? null;
  const scope = knowledgeScope(interaction, context.moderatorRoleIds, channelId, nameAChannel);
  if (typeof scope === 'string') return privately(interaction, scope);
  // The whole server's moderators see every document; a channel's, that channel's.
  const documents = context.knowledge.base.list(interaction.guildId, scope.channelId ?? undefined);
  if (documents.length === 0)
    return privately(
      interaction,
      `I know no documents for ${scopeWords(scope.channelId)}. \`/knowledge add\` adds one.`,
    );
  const pieces = splitMessage(documents.map(describe).join('\n'));
  for (const piece of pieces.slice(0, 5)) await privately(interaction, piece);
}

export async function removeKnowledge(interaction: Interaction, context: CommandContext): Promise<void> {
  const id = interaction.options.getInteger('id', true);
  const document = context.knowledge.base.list(interaction.guildId).find((candidate) => candidate.id === id);
  if (!document) return privately(interaction, `There is no document ${id} in this server's knowledge.`);
  const scope = knowledgeScope(interaction, context.moderatorRoleIds, document.channelId);
  if (typeof scope === 'string') return privately(interaction, scope);
  context.knowledge.base.remove(interaction.guildId, id);
  return privately(
    interaction,
    `Removed **${escapeMarkdown(truncateLine(document.source.title, 100))}** (${id}) from my knowledge.`,
  );
}

/** The passages the agent would be shown for `query` in the channel named, or the one the command is used in. */
export async function searchKnowledgeHere(interaction: Interaction, context: CommandContext): Promise<void> {
  const here = interaction.channel?.isThread() ? interaction.channel.parentId : interaction.channelId;
  const channelId = interaction.options.getChannel('channel')?.id ?? here;
  if (!channelId) return privately(interaction, 'Name a channel to search as in it.');
  const scope = knowledgeScope(interaction, context.moderatorRoleIds, channelId);
  if (typeof scope === 'string') return privately(interaction, scope);
  const query = interaction.options.getString('query', true);
  const passages = await context.knowledge.base.search({
    guildId: interaction.guildId,
    channelIds: [channelId],
    query,
    limit: 5,
  });
  if (passages.length === 0) return privately(interaction, `Nothing in my knowledge for <#${channelId}> matches that.`);
  const lines = passages.flatMap((passage) => passageLines(passage, 300));
  for (const piece of splitMessage(lines.join('\n')).slice(0, 3)) await privately(interaction, piece);
}
