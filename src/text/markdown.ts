/**
 * Text from people (a thread's name, a member's name, a question) put into a line the bot formats
 * with Markdown: each character Discord's Markdown could read as a mark is escaped with a backslash,
 * so "what is 2+3*4?" stays as written and cannot restyle the line. Discord's Markdown takes a
 * backslash before any punctuation as "this character as it is" (the same rule discord.js's
 * `escapeMarkdown` follows for the marks it knows); the angle bracket and `@` are escaped too, so a
 * name cannot read as a mention or a custom emoji.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\*_`~|<>@#[\]()-]/g, '\\$&');
}
