/**
 * Migration 20 and db/catch-up-runs.ts: a database made before it (at 17, with runs of both older
 * kinds) takes the new kind in place, keeps its rows and its schema whole, and the kind is still
 * checked; a catch-up run is recorded with its steps, tokens and authors.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../db/migrations.ts';
import { openDatabase } from '../../db/open-database.ts';
import { forgottenSinceQuery } from '../../db/catch-up-runs.ts';
import { openStore } from '../../db/store.ts';
import { tempStore } from '../support/temp-store.ts';

const insertRun = (kind: string, id: string) =>
  `INSERT INTO runs (id, conversation_id, instance_id, trigger_message_ids, status, model, started_at, kind)
   VALUES ('${id}', 1, 'i', '[]', 'answered', 'm', 0, '${kind}')`;

describe('migration 20: catch-up runs', () => {
  it('takes the new kind on a database of version 17, keeps its runs, and still refuses a kind it does not know', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'catch-up-')), 'bot.sqlite');
    const old = openDatabase(path, { migrations: migrations.filter((migration) => migration.version <= 17) });
    old.exec(
      `INSERT INTO instances (id, kind, pid, hostname, started_at, heartbeat_at) VALUES ('i', 'bot', 1, 'h', 0, 0)`,
    );
    old.exec(`INSERT INTO conversations (key, title, created_at) VALUES ('discord:1', 't', 0)`);
    old.exec(insertRun('answer', 'a'));
    old.exec(insertRun('summary', 's'));
    expect(() => old.exec(insertRun('catch-up', 'c'))).toThrow(/CHECK constraint failed/);
    old.close();

    const store = openStore(path);
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(store.db.prepare('SELECT id, kind FROM runs ORDER BY id').all()).toEqual([
      { id: 'a', kind: 'answer' },
      { id: 's', kind: 'summary' },
    ]);
    store.db.exec(insertRun('catch-up', 'c'));
    expect(() => store.db.exec(insertRun('bogus', 'b'))).toThrow(/CHECK constraint failed/);
    store.close();
  });

  it('records a catch-up with a step per call, its tokens, and the authors it read once each', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'catch-up-')), 'bot.sqlite');
    const store = openStore(path);
    store.db.exec(
      `INSERT INTO instances (id, kind, pid, hostname, started_at, heartbeat_at) VALUES ('i', 'bot', 1, 'h', 0, 0)`,
    );
    const conversation = store.conversations.ensure({
      key: 'discord:catch-up:5',
      title: 't',
      guildId: '9',
      channelId: '5',
      startedById: null,
      startedByName: null,
    });
    const call = (note: string) => ({
      note,
      output: `${note} out`,
      promptTokens: 10,
      completionTokens: 2,
      startedAt: 0,
      endedAt: 1,
    });
    const recorded = store.catchUps.record({
      id: 'r',
      conversationId: conversation.id,
      instanceId: 'i',
      model: 'm',
      modelName: 'm',
      startedAt: 0,
      placeId: '9',
      guildId: '9',
      authorIds: ['u1', 'u2', 'u1'],
      calls: [call('piece 1 of 2'), call('piece 2 of 2'), call('merge 1.1')],
      error: null,
    });
    expect(recorded).toBe(true);
    expect(store.db.prepare("SELECT kind, status, total_tokens FROM runs WHERE id = 'r'").get()).toEqual({
      kind: 'catch-up',
      status: 'answered',
      total_tokens: 36,
    });
    expect(store.db.prepare("SELECT note FROM steps WHERE run_id = 'r' ORDER BY sequence").pluck().all()).toEqual([
      'piece 1 of 2',
      'piece 2 of 2',
      'merge 1.1',
    ]);
    expect(
      store.db.prepare("SELECT author_id FROM catch_up_authors WHERE run_id = 'r' ORDER BY author_id").pluck().all(),
    ).toEqual(['u1', 'u2']);
    store.close();
  });
});

describe("a catch-up's record looks up forgets by the member (migration 25)", () => {
  it('finds a member forgotten in the place through the forgets_by_member index, never a scan of every forget', () => {
    const { store } = tempStore();
    try {
      const plan = store.db.prepare(`EXPLAIN QUERY PLAN ${forgottenSinceQuery}`).all('g', 'u', 0) as {
        detail: string;
      }[];
      const details = plan.map((row) => row.detail).join('\n');
      expect(details).toMatch(
        /SEARCH forgets USING (COVERING )?INDEX forgets_by_member \(guild_id=\? AND user_id=\? AND forgotten_at>\?\)/,
      );
      expect(details).not.toMatch(/SCAN forgets/);
    } finally {
      store.close();
    }
  });
});
