import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MessageRow } from '../../db/messages.ts';
import type { TokenCounter } from '../../src/memory/token-counter.ts';
import { cancelledObservation, selectWindow, toChatMessages } from '../../src/memory/window.ts';
import { chatRequestProblems } from '../support/openai-conformance.ts';

/**
 * A conversation as the database holds it: runs, each answering some user messages with tool-call
 * groups and an answer; messages that arrive while a run goes on are stored between its rows.
 */
type Run = {
  asked: number[];
  groups: { tokens: number[]; stored: boolean[] }[];
  answer: number | null;
  interrupting: number[];
};

function toRows(runs: Run[]): MessageRow[] {
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
    answers_id: null,
    discord_message_id: null,
    created_at: id,
    token_count: 1,
    scheduled: 0,
    ...fields,
  });
  for (const run of runs) {
    for (const tokens of run.asked) rows.push(row({ token_count: tokens }));
    const answersId = id;
    const interrupting = [...run.interrupting];
    const interrupt = () => {
      const tokens = interrupting.shift();
      if (tokens !== undefined) rows.push(row({ author_name: 'Bob', token_count: tokens }));
    };
    for (const group of run.groups) {
      const headId = id + 1;
      const calls = group.stored.map((_, index) => ({
        id: `call_${headId}_${index}`,
        type: 'function',
        function: { name: 'calculator', arguments: '{}' },
      }));
      rows.push(
        row({
          role: 'assistant',
          content: '',
          tool_calls: JSON.stringify(calls),
          group_id: headId,
          answers_id: answersId,
          token_count: group.tokens[0]!,
        }),
      );
      interrupt();
      // Results are stored in completion order, which need not be call order; some never arrive.
      group.stored.forEach((stored, index) => {
        if (stored)
          rows.push(
            row({
              role: 'tool',
              tool_call_id: `call_${headId}_${group.stored.length - 1 - index}`,
              group_id: headId,
              answers_id: answersId,
              token_count: group.tokens[index + 1] ?? 1,
            }),
          );
        interrupt();
      });
    }
    if (run.answer !== null) rows.push(row({ role: 'assistant', answers_id: answersId, token_count: run.answer }));
    while (interrupting.length > 0) interrupt();
  }
  return rows;
}

const tokens = fc.integer({ min: 1, max: 400 });
const runArbitrary: fc.Arbitrary<Run> = fc.record({
  asked: fc.array(tokens, { minLength: 1, maxLength: 3 }),
  groups: fc.array(
    fc.integer({ min: 1, max: 4 }).chain((calls) =>
      fc.record({
        tokens: fc.array(tokens, { minLength: calls + 1, maxLength: calls + 1 }),
        stored: fc.array(fc.boolean(), { minLength: calls, maxLength: calls }),
      }),
    ),
    { maxLength: 3 },
  ),
  answer: fc.option(tokens),
  interrupting: fc.array(tokens, { maxLength: 2 }),
});

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

describe('selectWindow', () => {
  it('keeps every rule at every cut point of random conversations', () => {
    fc.assert(
      fc.property(
        fc.array(runArbitrary, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 0, max: 3 }),
        (runs, budget, messageCap, pinnedCount) => {
          const rows = toRows([
            ...runs,
            ...(pinnedCount > 0
              ? [{ asked: Array.from({ length: pinnedCount }, () => 50), groups: [], answer: null, interrupting: [] }]
              : []),
          ]);
          const pinned = new Set(rows.slice(rows.length - pinnedCount).map((row) => row.id));
          const { iterable, state } = counting(rows);

          const window = selectWindow(iterable, { budget, messageCap, floor: 3, pinned });
          const ids = new Set(window.map((row) => row.id));
          const cost = (list: MessageRow[]) =>
            list.reduce((sum, row) => sum + Math.min(row.token_count, messageCap), 0);
          const unitOf = (row: MessageRow) => row.group_id ?? row.id;
          const heads = rows.filter((row) => row.group_id === null || row.group_id === row.id);

          // The messages being answered are always there; so are at least the last 3 messages.
          for (const id of pinned) expect(ids.has(id)).toBe(true);
          expect(window.length).toBeGreaterThanOrEqual(Math.min(3, heads.length));
          // A group is whole or absent: no result without its call, no call without its stored results.
          const units = new Set(window.map(unitOf));
          for (const row of rows)
            expect(ids.has(row.id)).toBe(units.has(unitOf(row)) && (row.group_id === null || units.has(row.group_id)));
          // The units kept are the newest ones, with no gap.
          const oldestKept = Math.min(...window.filter((row) => unitOf(row) === row.id).map((row) => row.id));
          for (const head of heads) expect(ids.has(head.id)).toBe(head.id >= oldestKept);
          // Within the budget unless only required units are there, and the next older unit would not fit.
          const keptHeads = heads.filter((head) => ids.has(head.id)).reverse();
          let count = 0;
          let anyOptional = false;
          for (const head of keptHeads) {
            const members = window.filter((row) => unitOf(row) === head.id);
            if (!(count < 3 || members.some((row) => pinned.has(row.id)))) anyOptional = true;
            count += members.length;
          }
          if (anyOptional) expect(cost(window)).toBeLessThanOrEqual(budget);
          const next = heads.filter((head) => head.id < oldestKept).at(-1);
          if (next) expect(cost(window) + cost(rows.filter((row) => unitOf(row) === next.id))).toBeGreaterThan(budget);
          // Rows read: no more than the kept rows and the one unit that did not fit, plus rows held in between.
          expect(state.read).toBeLessThanOrEqual(
            rows.length - (next ? rows.filter((row) => row.id < next.id).length : 0),
          );
          // A run's rows read right after the messages it answers, before messages that came meanwhile.
          const position = new Map(window.map((row, index) => [row.id, index]));
          for (const row of window)
            if (row.answers_id !== null && position.has(row.answers_id))
              expect(position.get(row.id)!).toBeGreaterThan(position.get(row.answers_id)!);
          for (const row of window.filter((message) => message.answers_id === null && message.author_name === 'Bob')) {
            for (const other of window)
              if (other.answers_id !== null && other.answers_id < row.id)
                expect(position.get(other.id)!).toBeLessThan(position.get(row.id)!);
          }
          // What the model gets is valid: every call answered exactly once, in call order.
          const messages = toChatMessages(window, identityCounter, messageCap);
          expect(
            chatRequestProblems({ model: 'm', messages: [{ role: 'system', content: 's' }, ...messages] }),
          ).toEqual([]);
        },
      ),
      { numRuns: 500 },
    );
  });
});

/** One token per character, so that cuts are easy to see. */
const identityCounter: TokenCounter = {
  encoding: 'o200k_base',
  load: () => Promise.resolve(),
  count: (text) => text.length,
  truncate: (text, maxTokens) => text.slice(0, maxTokens),
};

describe('toChatMessages', () => {
  it('says who spoke, answers each call in call order, marks missing results cancelled, and cuts long messages', () => {
    const rows = toRows([
      { asked: [5], groups: [{ tokens: [1, 1, 1], stored: [true, false] }], answer: null, interrupting: [] },
    ]);
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
