/**
 * The memory window: which stored messages the model sees. Newest first within a token budget,
 * each message first cut to a per-message cap; never fewer than the last `floor` messages and
 * always the current user messages (both win over the budget); an assistant message with tool
 * calls and its tool results come as one unit or not at all. Sent oldest first.
 */
import type { MessageRow } from '../../db/messages.ts';
import type { ChatMessage, ToolCall } from '../agent/messages.ts';
import type { TokenCounter } from './token-counter.ts';
import type { WindowImages } from './window-images.ts';

export interface WindowRules {
  /** Tokens the window may hold (the floor and the current messages may exceed it). */
  budget: number;
  /** Tokens one message may take; a longer one is cut. */
  messageCap: number;
  /** The window holds at least this many of the newest messages. */
  floor: number;
  /** Ids of the messages this run answers: always in the window. */
  pinned: ReadonlySet<number>;
  /** Tokens a row adds besides its text (its images), asked once per row read, newest first. */
  extraCost?: (row: MessageRow) => number;
}

export const cancelledObservation =
  'Interrupted: the run stopped before this call finished. Call it again if you still need it.';

/** Selects the window from rows given newest first; returns them oldest first. Reads no more rows than it keeps, plus one. */
export function selectWindow(newestFirst: Iterable<MessageRow>, rules: WindowRules): MessageRow[] {
  const kept: MessageRow[] = [];
  // Tool results come before their assistant message, and a message that arrived while a tool
  // ran can sit between them: results wait here until their assistant message is read.
  const waiting = new Map<number, MessageRow[]>();
  let tokens = 0;
  for (const row of newestFirst) {
    if (row.group_id !== null && row.group_id !== row.id) {
      waiting.set(row.group_id, [...(waiting.get(row.group_id) ?? []), row]);
      continue;
    }
    const unit = [...(waiting.get(row.id) ?? []), row];
    waiting.delete(row.id);
    const cost = unit.reduce(
      (sum, message) => sum + Math.min(message.token_count, rules.messageCap) + (rules.extraCost?.(message) ?? 0),
      0,
    );
    const required = kept.length < rules.floor || unit.some((message) => rules.pinned.has(message.id));
    if (!required && tokens + cost > rules.budget) break;
    kept.push(...unit);
    tokens += cost;
  }
  return kept.sort((a, b) => conversationOrder(a) - conversationOrder(b) || a.id - b.id);
}

/** Where a row reads in the conversation: a run's rows right after the last message it answers. */
export function conversationOrder(row: MessageRow): number {
  return row.answers_id ?? row.id;
}

/**
 * The window as chat messages: user messages say who spoke; each assistant message with tool
 * calls is followed by exactly one tool message per call, in call order ("cancelled" for a call
 * whose result was never stored, as after a crash).
 */
export function toChatMessages(
  rows: readonly MessageRow[],
  counter: TokenCounter,
  messageCap: number,
  images?: WindowImages,
): ChatMessage[] {
  const cut = (row: MessageRow, text: string) =>
    row.token_count > messageCap ? `${counter.truncate(text, messageCap)}\n[…cut]` : text;
  const messages: ChatMessage[] = [];
  const tails = new Map<number, MessageRow[]>();
  for (const row of rows) {
    if (row.group_id !== null && row.group_id !== row.id)
      tails.set(row.group_id, [...(tails.get(row.group_id) ?? []), row]);
  }
  for (const row of rows) {
    if (row.role === 'user') {
      const text = cut(row, formatUserContent(row.author_name, row.content));
      const { parts, named } = images?.render(row) ?? { parts: [], named: [] };
      const withNames = [text, ...named.map((name) => `[image: ${name}]`)].join('\n');
      messages.push({
        role: 'user',
        content: parts.length === 0 ? withNames : [{ type: 'text', text: withNames }, ...parts],
      });
    } else if (row.role === 'assistant' && row.tool_calls !== null) {
      const calls = JSON.parse(row.tool_calls) as ToolCall[];
      messages.push({ role: 'assistant', content: row.content === '' ? null : row.content, tool_calls: calls });
      const results = [...(tails.get(row.id) ?? [])];
      for (const call of calls) {
        const index = results.findIndex((result) => result.tool_call_id === call.id);
        const [result] = index >= 0 ? results.splice(index, 1) : [];
        messages.push({
          role: 'tool',
          tool_call_id: call.id,
          content: result ? cut(result, result.content) : cancelledObservation,
        });
      }
    } else if (row.role === 'assistant') messages.push({ role: 'assistant', content: cut(row, row.content) });
  }
  return messages;
}

/** How a user message reads in memory: who said it, then what they said. */
export function formatUserContent(authorName: string | null, content: string): string {
  return `${(authorName ?? 'someone').replace(/[\r\n]/g, ' ')}: ${content}`;
}
