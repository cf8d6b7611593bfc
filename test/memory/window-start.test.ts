import { describe, expect, it } from 'vitest';
import type { MessageRow } from '../../db/messages.ts';
import { selectSteppedWindow, type WindowStart } from '../../src/memory/window-start.ts';

/** A user message of `tokens` tokens, whose id is its conversation order. */
function message(id: number, tokens = 10): MessageRow {
  return {
    id,
    conversation_id: 1,
    run_id: null,
    role: 'user',
    author_id: null,
    author_name: 'Ada',
    content: `m${id}`,
    tool_calls: null,
    tool_call_id: null,
    group_id: null,
    answers_id: null,
    discord_message_id: null,
    created_at: id,
    token_count: tokens,
    scheduled: 0,
  };
}

const rules = (budget: number) => ({ budget, messageCap: 50, floor: 3, pinned: new Set<number>() });

/** A conversation of ten-token messages growing to `count`, its window loaded after each, the start remembered as the bot does. */
function grow(count: number, budget: number, start: WindowStart = { order: 0, budget: 0 }) {
  const firsts: number[] = [];
  let remembered = start;
  for (let newest = 1; newest <= count; newest++) {
    const rows = Array.from({ length: newest }, (_, index) => message(index + 1));
    const rowsFrom = (order: number) => rows.filter((row) => row.id >= order).reverse();
    const window = selectSteppedWindow(rowsFrom, rules(budget), remembered);
    if (window.movedTo !== null) remembered = { order: window.movedTo, budget };
    firsts.push(window.rows[0]!.id);
    expect(window.rows.at(-1)!.id).toBe(newest);
  }
  return { firsts, remembered };
}

describe('the window start, moved in steps', () => {
  it('stays put while the conversation fits, then moves on by half the budget at once, and stays again', () => {
    // 100 tokens hold ten messages. At the 11th the start moves to where 50 tokens begin (the 7th),
    // and stays there until the 17th outgrows the budget again.
    const { firsts, remembered } = grow(22, 100);
    expect(firsts).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 7, 7, 7, 7, 7, 7, 13, 13, 13, 13, 13, 13]);
    expect(remembered).toEqual({ order: 13, budget: 100 });
  });

  it('starts over from the beginning for another budget (a place given a bigger window sees more at once)', () => {
    const { firsts } = grow(12, 200, { order: 9, budget: 100 });
    expect(firsts.at(-1)).toBe(1);
  });
});
