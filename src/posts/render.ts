import { knowledgeSourceTitle } from '../agent/checked-sources.ts';
import type { FinalAnswer } from '../agent/final-answer.ts';
import { escapeMarkdown } from '../text/markdown.ts';
import { truncateLine, truncateWithNote } from '../text/truncate.ts';

/** One tool call of a turn and how it ended, for the post that shows it. */
export interface FinishedCall {
  name: string;
  arguments: string;
  ok: boolean;
  /** The result, or the error observation. */
  text: string;
}

export type ToolPosts = 'all' | 'summary' | 'off';

/** Inline code that cannot be broken out of by a backtick in model or tool text. */
function code(text: string): string {
  return `\`${text.replace(/`/g, 'ˋ')}\``;
}

/**
 * What a model writes is posted within bounds, so that one reply cannot flood a thread (a
 * megabyte was 500 messages, holding the bot's REST budget for ten seconds): an answer is cut
 * after `maxAnswerChars`, a tool post lists `maxCallsShown` calls and counts the rest.
 */
const maxAnswerChars = 8_000;
const maxCallsShown = 10;

/** The message that shows one model turn's tool calls, once they have all finished. */
export function renderToolTurn(calls: readonly FinishedCall[], mode: Exclude<ToolPosts, 'off'>): string {
  const shown = calls.slice(0, maxCallsShown);
  const more = calls.length > shown.length ? `…and ${calls.length - shown.length} more calls` : null;
  if (mode === 'summary')
    return `🔧 ${[...shown.map((call) => truncateLine(call.name, 100)), ...(more ? [more] : [])].join(', ')}`;
  const lines = shown.map((call) => {
    const outcome = call.ok ? `→ ${code(truncateLine(call.text, 300))}` : `✗ ${truncateLine(call.text, 300)}`;
    return `🔧 **${truncateLine(call.name, 100)}** ${code(truncateLine(call.arguments || '{}', 300))} ${outcome}`;
  });
  return [...lines, ...(more ? [more] : [])].join('\n');
}

/**
 * An answer's text within `maxAnswerChars`, a note saying how much was cut: the same for an answer
 * posted whole and one shown as it is written (which would otherwise fill a thread as it grows).
 */
export function cutAnswer(text: string): string {
  return truncateWithNote(text, maxAnswerChars, (shown, total) => `\n[…cut: ${total - shown} more characters]`);
}

/** The answer, with the tools it relied on as a line of subtext, then the sources the run checked. */
export function renderAnswer(answer: FinalAnswer): string {
  const lines = [cutAnswer(answer.answer)];
  if (answer.tools_used.length > 0) lines.push(`-# 🔧 ${answer.tools_used.join(' · ')}`);
  if (answer.sources?.length) lines.push('Sources:', ...numberedSources(answer.sources, discordSource));
  return lines.join('\n');
}

/**
 * A source in Discord: a URL as `<url>`, a link without a preview
 * (https://support.discord.com/hc/en-us/articles/206342858: angle brackets suppress the embed); a
 * document of the server's knowledge without a link by its title, escaped (it is a file's words).
 */
function discordSource(source: string): string {
  const title = knowledgeSourceTitle(source);
  return title === null ? `<${source}>` : `📄 ${escapeMarkdown(truncateLine(title, 100))} (in this server's knowledge)`;
}

/** An answer's sources, numbered, each written by `link` (plain: a URL, or a knowledge document's title). */
export function numberedSources(sources: readonly string[], link: (url: string) => string = plainSource): string[] {
  return sources.map((url, index) => `${index + 1}. ${link(url)}`);
}

const plainSource = (source: string) => {
  const title = knowledgeSourceTitle(source);
  return title === null ? source : `${title} (the server's knowledge)`;
};

/** A thread's name from the message that started it: its first words, at most 100 characters. */
export function threadName(text: string, authorName: string): string {
  return truncateLine(text, 100) || truncateLine(`Chat with ${authorName}`, 100);
}
