/** How much of a text a tool reads hands the model: fetch_url's page, an MCP server's resource. */
import { truncateWithNote } from '../text/truncate.ts';
import { formatCount } from '../text/count.ts';

/** Characters of text handed back at most, below the observation cap. */
export const maxReadChars = 12_000;

/** `text` within `maxChars`, with a note saying how much was left out: the model should know it goes on. */
export function cutReadText(text: string, maxChars = maxReadChars): string {
  return truncateWithNote(
    text,
    maxChars,
    (shown, total) => `\n\n[Truncated: showing the first ${formatCount(shown)} of ${formatCount(total)} characters.]`,
  );
}
