/**
 * The marks the bot's reading of a Discord message puts before text that is not the author's own
 * words: a forwarded message (its heading), an attached file read, a link's preview or a bot's card
 * (an embed). One list, written by the reader (src/discord/inbound/) and looked for before a member's
 * fact is remembered without asking them (tools/remember.ts, `ToolContext.othersWords`).
 */
export const othersWordsMarks = {
  forwarded: '[Forwarded message',
  attachment: '[Attachment ',
  embed: '[Embed',
} as const;

/**
 * Whether a message as the model reads it may hold words that are not its author's: one of the
 * marks. A member who types a mark themselves is only asked once more.
 */
export function holdsOthersWords(text: string): boolean {
  return Object.values(othersWordsMarks).some((mark) => text.includes(mark));
}
