/**
 * Forum (and media) channels: each post is a thread whose first message has the thread's id, its
 * title is the thread's name, and its tags are ids of the forum's available tags.
 * https://discord.com/developers/docs/resources/channel#start-thread-in-forum-or-media-channel
 * https://discord.com/developers/docs/topics/threads#forums
 * A post is a conversation as a thread is: answered when the bot is mentioned, or every new post
 * where a moderator switched that on (`/settings forum-answers`); follow-ups need no mention.
 */
import { type AnyThreadChannel, type Channel, ChannelType, type Message } from 'discord.js';

/** Whether the channel is a post of a forum or media channel. */
export function isForumPost(channel: Channel | null | undefined): channel is AnyThreadChannel {
  const parent = channel?.isThread() ? channel.parent : null;
  return parent?.type === ChannelType.GuildForum || parent?.type === ChannelType.GuildMedia;
}

/** Whether `message` opens its forum post (the post's first message has the thread's id). */
export function opensForumPost(message: Message): boolean {
  return isForumPost(message.channel) && message.id === message.channel.id;
}

/** The post's title, which its first message is read with (its question is the title and the message). */
export function forumPostTitle(message: Message): string | null {
  const post = message.channel;
  return opensForumPost(message) && post.isThread() ? post.name.trim() || null : null;
}

/** The names of the tags applied to a forum post, as its forum names them. */
export function forumPostTags(post: AnyThreadChannel): string[] {
  const parent = post.parent;
  if (!parent || !('availableTags' in parent)) return [];
  return post.appliedTags.flatMap((id) => parent.availableTags.find((tag) => tag.id === id)?.name ?? []);
}
