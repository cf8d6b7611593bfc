/**
 * "Mark solved" in a forum post: once the bot has answered a post, a small message offers the
 * button; the post's asker (its owner) or a moderator of the forum presses it (or uses `/solved`),
 * and the post gets the forum's solved tag: the one its moderators picked (`/settings
 * forum-solved-tag`), else a tag named "solved", "resolved", "answered", "fixed" or "done".
 * Applying a tag is a change of the thread's `applied_tags` (at most 5), which needs Manage Threads
 * of a bot that does not own the post.
 * https://discord.com/developers/docs/resources/channel#modify-channel-json-params-thread
 */
import {
  type AnyThreadChannel,
  ButtonStyle,
  type Channel,
  ComponentType,
  type GuildForumTag,
  type GuildMember,
  MessageFlags,
} from 'discord.js';
import type { Store } from '../../../db/store.ts';
import type { ModelCatalog } from '../../model-catalog/model-catalog.ts';
import { settingsOfConversation } from '../../place-settings/place-choice.ts';
import { isForumPost } from '../inbound/forum-posts.ts';
import { isModerator } from '../interactions/moderation.ts';
import { noPings } from '../outbound/send.ts';

/** The custom id of the button: routed to the `/solved` command (commands/solved.ts). */
const markSolvedButtonId = 'solved:press';

const solvedNames = /^(solved|resolved|answered|fixed|done)$/i;

/** The tag marking the post solved, if its forum has one. */
export function solvedTagOf(
  post: AnyThreadChannel,
  places: { store: Store; models: ModelCatalog },
): GuildForumTag | null {
  const parent = post.parent;
  if (!parent || !('availableTags' in parent)) return null;
  const place = { guild_id: post.guildId, channel_id: parent.id, thread_id: null };
  const chosen = settingsOfConversation(places.store, places.models, place)?.forumSolvedTag?.value;
  const tags = parent.availableTags;
  return (chosen ? tags.find((tag) => tag.name === chosen) : tags.find((tag) => solvedNames.test(tag.name))) ?? null;
}

/**
 * After the first answer in a forum post: a line offering "Mark solved", where the forum has a
 * solved tag the post does not have yet.
 */
export async function offerToMarkSolved(post: Channel, places: { store: Store; models: ModelCatalog }): Promise<void> {
  if (!isForumPost(post)) return;
  const tag = solvedTagOf(post, places);
  if (!tag || post.appliedTags.includes(tag.id)) return;
  await post.send({
    content: '-# Did this answer the post? Its asker or a moderator can mark it solved.',
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.Button,
            style: ButtonStyle.Success,
            label: 'Mark solved',
            customId: markSolvedButtonId,
          },
        ],
      },
    ],
    allowedMentions: noPings,
    flags: MessageFlags.SuppressNotifications,
  });
}

/** Why `member` may not mark `channel` solved, or null when they may (the post's asker, or a moderator there). */
export function whyNotMarkSolved(
  post: Channel | null,
  member: GuildMember,
  moderatorRoleIds: readonly string[],
): string | null {
  if (!isForumPost(post)) return 'This works in a forum post.';
  if (post.ownerId === member.id || isModerator(member, post, moderatorRoleIds)) return null;
  return 'Only the one who asked, or a moderator, can mark this post solved.';
}

/** Applies the solved tag; says what happened, in words for the person. */
export async function markSolved(post: AnyThreadChannel, tag: GuildForumTag | null): Promise<string> {
  if (!tag)
    return 'This forum has no tag for solved posts: a moderator can pick one with `/settings forum-solved-tag`.';
  if (post.appliedTags.includes(tag.id)) return 'This post is marked solved already.';
  // At most 5 tags on a post: the oldest other tag gives way.
  await post.setAppliedTags([...post.appliedTags.filter((id) => id !== tag.id), tag.id].slice(-5));
  return `Marked solved (${tag.name}).`;
}
