import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MessageRow } from '../../db/messages.ts';
import type { TokenCounter } from '../../src/memory/token-counter.ts';
import { cancelledObservation, selectWindow, toChatMessages, type WindowRules } from '../../src/memory/window.ts';
import { chatRequestProblems } from '../support/openai-conformance.ts';

/** A conversation as the database holds it: units of one message, or a tool-call group. */
type Unit = { kind: 'user' | 'answer'; tokens: number } | { kind: 'group'; tokens: number[]; stored: boolean[] };

function toRows(units: Unit[]): MessageRow[] {
  const rows: MessageRow[] = [];
  let id = 0;
  const row = (fields: Partial<MessageRow>): MessageRow => ({
    id: ++id,
    conversation_id: 1,
    run_id: null,
    role: 'user',
    author_id: null,
    author_name: 'Ada',
    content: `m${id}`,
    tool_calls: null,
    tool_call_id: null,
    group_id: null,
    discord_message_id: null,
    created_at: id,
    token_count: 1,
    ...fields,
  });
  for (const unit of units) {
    if (unit.kind !== 'group') {
      rows.push(row({ role: unit.kind === 'user' ? 'user' : 'assistant', token_count: unit.tokens }));
      continue;
    }
    const headId = id + 1;
    const calls = unit.stored.map((_, index) => ({ id: `call_${headId}_${index}`, type: 'function', function: { name: 'calculator', arguments: '{}' } }));
    rows.push(row({ role: 'assistant', content: '', tool_calls: JSON.stringify(calls), group_id: headId, token_count: unit.tokens[0]! }));
    // Results are stored in completion order, which need not be call order; some never arrive.
    unit.stored.forEach((stored, index) => {
      if (stored) rows.push(row({ role: 'tool', tool_call_id: `call_${headId}_${unit.stored.length - 1 - index}`, group_id: headId, token_count: unit.tokens[index + 1] ?? 1 }));
    });
  }
  return rows;
}

const unitArbitrary: fc.Arbitrary<Unit> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), tokens: fc.integer({ min: 1, max: 400 }) }),
  fc.record({ kind: fc.constant('answer' as const), tokens: fc.integer({ min: 1, max: 400 }) }),
  fc.integer({ min: 1, max: 4 }).chain((calls) =>
    fc.record({
      kind: fc.constant('group' as const),
      tokens: fc.array(fc.integer({ min: 1, max: 400 }), { minLength: calls + 1, maxLength: calls + 1 }),
      stored: fc.array(fc.boolean(), { minLength: calls, maxLength: calls }),
    }),
  ),
);

/** Counts the rows the selection pulls from the "database". */
function counting(rows: MessageRow[]) {
  const state = { read: 0 };
  const iterable = {
    *[Symbol.iterator]() {
      for (const row of [...rows].reverse()) {
        state.read += 1;
        yield row;
      }
    },
  };
  return { iterable, state };
}

const unitOf = (row: MessageRow) => row.group_id ?? row.id;

describe('selectWindow', () => {
  it('keeps every rule at every cut point of random conversations', () => {
    fc.assert(
      fc.property(
        fc.array(unitArbitrary, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 0, max: 3 }),
        (units, budget, messageCap, pinnedCount) => {
          const rows = toRows([...units, ...Array.from({ length: pinnedCount }, () => ({ kind: 'user' as const, tokens: 50 }))]);
          const pinned = new Set(rows.slice(rows.length - pinnedCount).map((row) => row.id));
          const rules: WindowRules = { budget, messageCap, floor: 3, pinned };
          const { iterable, state } = counting(rows);

          const window = selectWindow(iterable, rules);
          const ids = window.map((row) => row.id);
          const cost = (list: MessageRow[]) => list.reduce((sum, row) => sum + Math.min(row.token_count, messageCap), 0);

          // Oldest first, and a contiguous run of the newest rows.
          expect(ids).toEqual([...ids].sort((a, b) => a - b));
          expect(ids).toEqual(rows.slice(rows.length - window.length).map((row) => row.id));
          // The messages being answered are always there; so are at least the last 3 messages.
          for (const id of pinned) expect(ids).toContain(id);
          expect(window.length).toBeGreaterThanOrEqual(Math.min(3, rows.length));
          // A group is whole or absent: no tool result without its call, no call without its stored results.
          const kept = new Set(window.map(unitOf));
          for (const row of rows) if (kept.has(unitOf(row))) expect(ids).toContain(row.id);
          // Within the budget, unless only the floor and the pinned messages are there; and the
          // next older unit would not have fitted.
          const required = new Set<number>();
          let count = 0;
          for (const unit of [...kept].sort((a, b) => b - a)) {
            const members = window.filter((row) => unitOf(row) === unit);
            if (count < 3 || members.some((row) => pinned.has(row.id))) required.add(unit);
            count += members.length;
          }
          if (required.size < kept.size) expect(cost(window)).toBeLessThanOrEqual(budget);
          const older = rows.filter((row) => row.id < (ids[0] ?? Infinity));
          if (older.length > 0) {
            const next = older.filter((row) => unitOf(row) === unitOf(older.at(-1)!));
            expect(cost(window) + cost(next)).toBeGreaterThan(budget);
          }
          // Rows read: what it kept, plus at most the one unit that did not fit.
          const nextUnitSize = older.length > 0 ? rows.filter((row) => unitOf(row) === unitOf(older.at(-1)!)).length : 0;
          expect(state.read).toBeLessThanOrEqual(window.length + nextUnitSize);
          // What the model gets is valid: every call answered exactly once, in call order.
          const messages = toChatMessages(window, identityCounter, messageCap);
          expect(chatRequestProblems({ model: 'm', messages: [{ role: 'system', content: 's' }, ...messages] })).toEqual([]);
        },
      ),
      { numRuns: 500 },
    );
  });
});

/** One token per character, so that cuts are easy to see. */
const identityCounter: TokenCounter = {
  encoding: 'o200k_base',
  count: (text) => text.length,
  truncate: (text, maxTokens) => text.slice(0, maxTokens),
};

describe('toChatMessages', () => {
  it('says who spoke, answers each call in call order, marks missing results cancelled, and cuts long messages', () => {
    const rows = toRows([{ kind: 'user', tokens: 5 }, { kind: 'group', tokens: [1, 1, 1], stored: [true, false] }]);
    rows[0] = { ...rows[0]!, content: 'a very long message', token_count: 19 };

    const messages = toChatMessages(rows, identityCounter, 10);

    expect(messages).toEqual([
      { role: 'user', content: 'Ada: a ver\n[…cut]' },
      { role: 'assistant', content: null, tool_calls: JSON.parse(rows[1]!.tool_calls!) },
      { role: 'tool', tool_call_id: 'call_2_0', content: cancelledObservation },
      { role: 'tool', tool_call_id: 'call_2_1', content: 'm3' },
    ]);
  });
});
