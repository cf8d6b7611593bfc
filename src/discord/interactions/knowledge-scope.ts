/**
 * Who may change a server's knowledge, and where (`/knowledge`, "Add to knowledge"): the whole
 * server's by its moderators (Manage Messages as a server permission, or a moderator role), one
 * channel's by the moderators of that channel (Manage Messages there), as `/settings` and
 * `/schedule` check, from Discord's permissions at each use.
 */
import type { Guild, GuildMember } from 'discord.js';
import type { KnowledgeBase, KnowledgeSource } from '../../knowledge/knowledge-base.ts';
import { truncateLine } from '../../text/truncate.ts';
import { isModerator, isServerModerator } from './moderation.ts';

/** Who asks, in which server, as an interaction has them. */
interface Asker {
  member: GuildMember;
  guild: Guild;
}

/**
 * The scope a change goes to (null: the whole server; a channel's id), if this member may make it
 * there; else the sentence that says why not.
 */
export function knowledgeScope(
  asker: Asker,
  moderatorRoleIds: readonly string[],
  channelId: string | null,
  /** How the command narrows a change to one channel (its option), said with the refusal; none for a command that cannot. */
  narrowing: string | null = null,
): { channelId: string | null } | string {
  if (channelId === null)
    return isServerModerator(asker.member, moderatorRoleIds)
      ? { channelId: null }
      : `The whole server's knowledge is kept by moderators of the whole server${narrowing ? `: ${narrowing}` : ''}.`;
  const channel = asker.guild.channels.cache.get(channelId);
  if (!channel) return 'I cannot see that channel.';
  return isModerator(asker.member, channel, moderatorRoleIds)
    ? { channelId }
    : `The knowledge of <#${channelId}> is kept by moderators of that channel.`;
}

/**
 * Whether this member may add a source again: adding it replaces its document wherever it is kept,
 * so a source already in the knowledge of a place they do not keep (the whole server, another
 * channel) is not theirs to replace. Null: they may; else the sentence that says why not.
 */
export function replaceRefusal(
  asker: Asker,
  moderatorRoleIds: readonly string[],
  base: Pick<KnowledgeBase, 'documentOfSource'>,
  source: Pick<KnowledgeSource, 'key' | 'title' | 'kind'>,
): string | null {
  const existing = base.documentOfSource(asker.guild.id, source.key);
  if (!existing || typeof knowledgeScope(asker, moderatorRoleIds, existing.channelId) !== 'string') return null;
  const otherName = source.kind === 'file' ? ' (a file of another name would not replace it)' : '';
  return `I did not add **${truncateLine(source.title, 100)}**: it is in the knowledge of ${scopeWords(existing.channelId)} already, which only its moderators may change${otherName}.`;
}

/** The refusal's hint for a command with a `channel:` option. */
export const nameAChannel = 'name a channel you moderate (`channel:`)';

/** Where knowledge is said to apply, in words. */
export const scopeWords = (channelId: string | null) => (channelId === null ? 'the whole server' : `<#${channelId}>`);
