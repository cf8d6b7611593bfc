/**
 * Where a conversation's memory window starts, moved in steps. A model server reuses what it read
 * of the last prompt up to the first change (llama.cpp, vLLM and Ollama keep the longest common
 * prefix in their KV cache; OpenAI caches prefixes of 1,024 tokens and more:
 * https://platform.openai.com/docs/guides/prompt-caching). A window that dropped its oldest turn at
 * every message changed the prompt right after the system message each time, and the server read
 * the whole window again. So the start stays where it is while everything after it fits the budget;
 * when the conversation outgrows it, the start moves on at once to where a window of half the
 * budget begins, and stays there while the conversation grows back into the room it made. The start
 * is remembered on the conversation (`window_starts_at`, with the budget it was set for), so finding
 * it reads no more rows than the window holds.
 */
import type { MessageRow } from '../../db/messages.ts';
import { conversationOrder, selectWindow, type WindowRules } from './window.ts';

/** When a conversation outgrows the window, its start moves on by this share of the budget at once. */
const windowStepShare = 0.5;

/** The window's start as the conversation remembers it: a conversation order, and the budget it was set for. */
export interface WindowStart {
  order: number;
  budget: number;
}

/**
 * The window's rows, oldest first, from the remembered start (or from the beginning, when it was
 * set for another budget); and the start to remember when it moved (null: it stays). `rowsFrom`
 * gives the rows of conversation order `order` and later, newest first.
 */
export function selectSteppedWindow(
  rowsFrom: (order: number) => Iterable<MessageRow>,
  rules: WindowRules,
  start: WindowStart,
): { rows: MessageRow[]; movedTo: number | null } {
  const from = start.budget === rules.budget ? start.order : 0;
  let read = 0;
  const rows = selectWindow(
    counted(rowsFrom(from), () => (read += 1)),
    rules,
  );
  // Everything since the start fits: the start stays (selectWindow reads one row past what it keeps).
  if (read <= rows.length) return { rows, movedTo: null };
  const smaller = selectWindow(rowsFrom(from), {
    ...rules,
    budget: Math.floor(rules.budget * (1 - windowStepShare)),
  });
  const first = smaller[0];
  return { rows: smaller, movedTo: first ? conversationOrder(first) : null };
}

function* counted<T>(items: Iterable<T>, onRead: () => void): Generator<T> {
  for (const item of items) {
    onRead();
    yield item;
  }
}
