/**
 * /forget-me and the moderators' log channel's outbox (db/forget-member.ts, db/log-outbox.ts): a
 * report card still owed (the log channel unusable, or not posted yet) holds the member's reason,
 * their words; it goes with their reports, other members' cards stay.
 */
import { describe, expect, it } from 'vitest';
import { forgetMember } from '../../db/forget-member.ts';
import { tempStore } from '../support/temp-store.ts';

const guild = '200000000000000001';
const report = (id: string, reason: string) =>
  JSON.stringify({ kind: 'report', runId: 'run-1', reporter: { id, name: id }, reason });

describe("a member's forget and the log channel's outbox", () => {
  it('drops the report cards still owed for the member, with their words; keeps the others', () => {
    const { store } = tempStore();
    store.logOutbox.add(guild, report('bob', 'BOB SAID THIS'));
    store.logOutbox.add(guild, report('ada', 'ada said this'));
    store.logOutbox.add('200000000000000002', report('bob', 'bob elsewhere'));
    forgetMember(store.db, guild, 'bob');
    expect(store.logOutbox.oldest(guild, 10).map((row) => row.entry)).toEqual([report('ada', 'ada said this')]);
    expect(store.logOutbox.oldest('200000000000000002', 10)).toHaveLength(1);
  });
});
