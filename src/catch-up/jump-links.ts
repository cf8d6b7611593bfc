/**
 * The jump links of a catch-up summary: parsing a message link given as `since:`, and keeping in
 * the model's summary only the links to messages that were read. Discord's link form is
 * https://discord.com/channels/<guild or @me>/<channel>/<message>
 * (https://discord.com/developers/docs/reference#message-formatting); ptb. and canary. hosts and
 * discordapp.com are the same links.
 */

/** A link to a message, in its parts (guildId is '@me' in a DM). */
export interface MessageLink {
  guildId: string;
  channelId: string;
  messageId: string;
}

const linkPattern = /https?:\/\/(?:(?:ptb|canary)\.)?discord(?:app)?\.com\/channels\/(@me|\d+)\/(\d+)(?:\/(\d+))?/g;

/** The message a link points to, or null when the text is not one message link. */
export function parseMessageLink(text: string): MessageLink | null {
  const matches = [...text.trim().matchAll(linkPattern)];
  const match = matches.length === 1 ? matches[0] : undefined;
  if (!match || match[0] !== text.trim()) return null;
  const [, guildId, channelId, messageId] = match;
  return guildId && channelId && messageId ? { guildId, channelId, messageId } : null;
}

/**
 * The summary with every discord.com/channels link that is not to a message read (by id, in
 * `readIds`) removed: a markdown link keeps its words, a bare link goes. Returns how many were cut.
 */
export function keepReadLinks(summary: string, readIds: ReadonlySet<string>): { text: string; removed: number } {
  let removed = 0;
  const isRead = (link: string) => {
    const [match] = [...link.matchAll(linkPattern)];
    return Boolean(match?.[3] && readIds.has(match[3]));
  };
  const withoutMarkdown = summary.replace(/\[([^\]]*)\]\((<?)([^)\s>]+)>?\)/g, (whole, words, _lt, url) => {
    if (!new RegExp(linkPattern.source).test(url) || isRead(url)) return whole;
    removed++;
    return words;
  });
  const text = withoutMarkdown.replace(linkPattern, (link, _g, _c, messageId, offset, all: string) => {
    if (messageId && readIds.has(messageId)) return link;
    if (all[offset - 1] === '(') return link; // inside a markdown link kept above
    removed++;
    return '';
  });
  return { text: text.replace(/[ \t]+\n/g, '\n').replace(/ {2,}/g, ' '), removed };
}

/** The link to message `messageId` of channel `channelId` in server `guildId` (null: a DM). */
export const messageLink = (guildId: string | null, channelId: string, messageId: string) =>
  `https://discord.com/channels/${guildId ?? '@me'}/${channelId}/${messageId}`;

/**
 * The summary with each message number it cites (`#12`, as the transcript numbers them from 1)
 * made a link to that message: `[#12](link)`. A number past the messages read is no citation of
 * one: it goes. Returns how many went.
 */
export function linkCitations(summary: string, links: readonly string[]): { text: string; removed: number } {
  let removed = 0;
  const text = summary.replace(/(\[)?#(\d{1,6})\b(\]\([^)]*\))?/g, (whole, _open, digits: string) => {
    const link = links[Number(digits) - 1];
    if (link === undefined) {
      removed++;
      return '';
    }
    return `[#${digits}](${link})`;
  });
  return { text: text.replace(/\s*\(\s*(?:,\s*)*\)/g, '').replace(/ {2,}/g, ' '), removed };
}
