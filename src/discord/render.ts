import type { FinalAnswer } from '../agent/final-answer.ts';
import { shorten } from '../terminal/print-events.ts';

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

/** The message that shows one model turn's tool calls, once they have all finished. */
export function renderToolTurn(calls: readonly FinishedCall[], mode: Exclude<ToolPosts, 'off'>): string {
  if (mode === 'summary') return `🔧 ${calls.map((call) => call.name).join(', ')}`;
  return calls
    .map((call) => {
      const outcome = call.ok ? `→ ${code(shorten(call.text, 300))}` : `✗ ${shorten(call.text, 300)}`;
      return `🔧 **${call.name}** ${code(shorten(call.arguments || '{}', 300))} ${outcome}`;
    })
    .join('\n');
}

/** The answer, with the tools it relied on as a line of subtext. */
export function renderAnswer(answer: FinalAnswer): string {
  if (answer.tools_used.length === 0) return answer.answer;
  return `${answer.answer}\n-# 🔧 ${answer.tools_used.join(' · ')}`;
}

/** A thread's name from the message that started it: its first words, at most 100 characters. */
export function threadName(text: string, authorName: string): string {
  const words = text.replace(/\s+/g, ' ').trim();
  const name = words === '' ? `Chat with ${authorName}` : words;
  return name.length <= 100 ? name : `${name.slice(0, 99).trimEnd()}…`;
}
