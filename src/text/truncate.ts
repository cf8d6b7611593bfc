/**
 * Cutting text to a length: the one place that does it, for everything shown to people, to the
 * model or to logs. Lengths are in UTF-16 code units (what `String.length` counts, and what
 * Discord's and OpenAI's character limits count). A cut never falls between the two halves of a
 * surrogate pair: half an emoji is not a character, renders as �, and SQLite stores it as U+FFFD.
 *
 * This folder imports nothing of the project, so that every part (the agent core too) may use it.
 */

/** The ellipsis that ends a text cut by `truncate` and `truncateLine`. */
export const ellipsis = '…';

/**
 * The largest position at most `end` that does not fall inside a surrogate pair: `end` itself,
 * or one less when `end` would separate a pair. Clamped to `[0, text.length]`.
 */
export function safeCutIndex(text: string, end: number): number {
  if (end >= text.length) return text.length;
  if (end <= 0) return 0;
  return isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end)) ? end - 1 : end;
}

/** The longest start of `text` of at most `max` code units that keeps surrogate pairs whole; no marker. */
export function cutAt(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, safeCutIndex(text, max));
}

/**
 * `text` as it is if it fits in `max` code units; otherwise its start, with trailing white space
 * dropped, and "…", in `max` code units at most.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < ellipsis.length) return '';
  return `${cutAt(text, max - ellipsis.length).trimEnd()}${ellipsis}`;
}

/** `text` on one line (runs of white space, line breaks included, become one space; ends trimmed), then `truncate`d to `max`. */
export function truncateLine(text: string, max: number): string {
  return truncate(oneLine(text), max);
}

/** Runs of white space as one space, ends trimmed. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * `text` as it is if it fits in `max` code units; otherwise its first `max` (one fewer to keep a
 * surrogate pair whole) followed by `note(shown, total)`, which says what was left out. The note
 * comes on top of `max`: use this where the reader (often the model) should know text is missing.
 */
export function truncateWithNote(text: string, max: number, note: (shown: number, total: number) => string): string {
  if (text.length <= max) return text;
  const shown = safeCutIndex(text, max);
  return `${text.slice(0, shown)}${note(shown, text.length)}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
