/**
 * `/solved`, and the "Mark solved" button the bot offers after its first answer in a forum post
 * (src/discord/runs/forum-solved.ts): the post's asker or a moderator of the forum marks the post
 * solved, and it gets the forum's solved tag. Judged at each use against who owns the post and the
 * presser's Discord permissions, never against anything said in it.
 */
import { type MessageComponentInteraction, RESTJSONErrorCodes } from 'discord.js';
import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { isForumPost } from '../src/discord/inbound/forum-posts.ts';
import { markSolved, solvedTagOf, whyNotMarkSolved } from '../src/discord/runs/forum-solved.ts';
import { describeDiscordError, isDiscordCode } from '../src/discord/discord-errors.ts';
import type { CommandContext } from '../src/discord/interactions/command-context.ts';
import { guildOnly, privately } from './shared.ts';

/** What marking the post solved came to, in words for the person. */
async function mark(
  interaction: { channel: Parameters<typeof whyNotMarkSolved>[0]; member: Parameters<typeof whyNotMarkSolved>[1] },
  context: CommandContext,
): Promise<{ done: boolean; said: string }> {
  const why = whyNotMarkSolved(interaction.channel, interaction.member, context.moderatorRoleIds);
  if (why !== null || !isForumPost(interaction.channel)) return { done: false, said: why ?? '' };
  const post = interaction.channel;
  try {
    const said = await markSolved(post, solvedTagOf(post, context));
    return { done: said.startsWith('Marked solved'), said };
  } catch (error) {
    const cause = describeDiscordError(error);
    context.logger.warn({ err: error, threadId: post.id, cause }, 'could not mark a forum post solved');
    const said = isDiscordCode(error, [RESTJSONErrorCodes.MissingPermissions])
      ? 'I could not tag this post: I need the Manage Threads permission in this forum.'
      : `I could not tag this post: ${cause}.`;
    return { done: false, said };
  }
}

export const solvedCommand = defineCommand({
  name: 'solved',
  moderatorOnly: false,
  data: () => ({
    name: 'solved',
    description: 'Mark this forum post solved (its asker or a moderator).',
    ...guildOnly,
  }),
  async execute(interaction, context) {
    const { done, said } = await mark(interaction, context);
    const name = interaction.member.displayName;
    if (!done) return privately(interaction, said);
    await interaction.reply({
      content: `✅ ${said.replace('Marked solved', `Marked solved by ${name}`)}`,
      allowedMentions: { parse: [] },
    });
  },
  async component(interaction: MessageComponentInteraction<'cached'>, context) {
    const { done, said } = await mark(interaction, context);
    if (!done) return privately(interaction, said);
    const name = interaction.member.displayName;
    // The offer becomes the record of who marked it; its button goes.
    await interaction.update({
      content: `-# ✅ ${said.replace('Marked solved', `Marked solved by ${name}`)}`,
      components: [],
      allowedMentions: { parse: [] },
    });
  },
});
