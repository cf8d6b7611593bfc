/**
 * The schema-coverage guard of `npm run move-server`: every table of the latest schema is either
 * moved with a server or declared not to be any server's, in one list (`serverTables` in
 * db/move-server-tables.ts). A new table fails here until whoever adds it says which; a table with a
 * server's rows is then one line when it hangs off a server id or a message id (tested below).
 */
import { describe, expect, it } from 'vitest';
import { copyServer, deleteServer, planMove, schemaProblem } from '../../db/move-server.ts';
import { openStore, type Store } from '../../db/store.ts';
import { columnsOf, conversationColumns, serverTables, type TableRule, tablesOf } from '../../db/move-server-tables.ts';
import { tempStore } from '../support/temp-store.ts';

const guild = '200000000000000001';
const sortedColumns = (store: Store, table: string) => columnsOf(store.db, table).sort();

describe('every table of the latest schema', () => {
  const store = openStore(':memory:');
  const tables = tablesOf(store.db);

  it('is moved with a server or declared global in serverTables (db/move-server-tables.ts): add a line there for a new table', () => {
    const classified = new Set(serverTables.map((rule) => rule.table));
    expect(tables.filter((table) => !classified.has(table))).toEqual([]);
  });

  it('and serverTables names no table the schema does not have, each once', () => {
    const names = serverTables.map((rule) => rule.table);
    expect(names.filter((name) => !tables.includes(name))).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
  });

  it('moved with conversations has each column remapped or copied as it is (conversationColumns): a new column that holds an id must be remapped', () => {
    for (const rule of serverTables.filter((rule) => rule.moves === 'with-conversations')) {
      const listed = conversationColumns[rule.table];
      expect(listed, rule.table).toBeDefined();
      expect(sortedColumns(store, rule.table), rule.table).toEqual([...listed!.remapped, ...listed!.copied].sort());
    }
    expect(schemaProblem(store.db)).toBeNull();
  });

  it('declared global has no column that would tie its rows to a server, a conversation, a message or a run', () => {
    const tying = /^(guild_id|conversation_id|message_id|run_id|channel_id|thread_id)$/;
    for (const rule of serverTables.filter((rule) => rule.moves === 'never'))
      expect(
        sortedColumns(store, rule.table).filter((column) => tying.test(column)),
        rule.table,
      ).toEqual([]);
  });
});

describe('a table serverTables does not list', () => {
  it('makes the move refuse the database, naming it', () => {
    const store = openStore(':memory:');
    store.db.exec('CREATE TABLE server_settings (guild_id TEXT PRIMARY KEY, value TEXT) STRICT');
    expect(schemaProblem(store.db)).toMatch(/tables this version of move-server does not know \(server_settings\)/);
  });

  it('moved with conversations, with a column no one listed, makes it refuse too', () => {
    const store = openStore(':memory:');
    store.db.exec('ALTER TABLE messages ADD COLUMN reply_to_id INTEGER');
    expect(schemaProblem(store.db)).toMatch(/does not know how to copy messages \(reply_to_id\)/);
  });
});

describe('a table of a server’s rows is one line', () => {
  // A stand-in for a new table kept by server; message_images (migration 9) is a real one, kept by message.
  const extraTables = `
    CREATE TABLE channel_settings (channel_id TEXT PRIMARY KEY, guild_id TEXT NOT NULL, value TEXT NOT NULL) STRICT, WITHOUT ROWID;`;
  const rules: readonly TableRule[] = [
    ...serverTables,
    { table: 'channel_settings', moves: 'by-guild', guildColumn: 'guild_id' },
  ];

  /** A database with the extra tables, a conversation of `server` and an image on each of its messages. */
  function database(server: string, words: string[]): Store {
    const { store } = tempStore();
    store.db.exec(extraTables);
    const conversation = store.conversations.ensure({
      key: `discord:${server}-${words[0]}`,
      title: 't',
      guildId: server,
      channelId: 'c',
      startedById: null,
      startedByName: null,
    });
    for (const word of words) {
      const id = store.messages.insert({
        conversationId: conversation.id,
        runId: null,
        role: 'user',
        authorId: null,
        authorName: null,
        content: word,
        toolCalls: null,
        toolCallId: null,
        groupId: null,
        answersId: null,
        discordMessageId: null,
        tokenCount: 1,
      });
      store.db
        .prepare(
          "INSERT INTO message_images (message_id, conversation_id, position, name, media_type, width, height, bytes) VALUES (?, ?, 0, ?, 'image/png', 1, 1, ?)",
        )
        .run(id, conversation.id, `${word}.png`, Buffer.from(word));
    }
    store.db.prepare('INSERT INTO channel_settings VALUES (?, ?, ?)').run(`${server}-channel`, server, words.join());
    return store;
  }

  /** Each image with its message's text, found by its message and by its conversation alike. */
  const images = (store: Store) =>
    store.db
      .prepare(
        'SELECT m.content, i.name, i.bytes FROM message_images i JOIN messages m ON m.id = i.message_id AND m.conversation_id = i.conversation_id ORDER BY i.id',
      )
      .all()
      .map((row) => {
        const { content, name, bytes } = row as { content: string; name: string; bytes: Buffer };
        return { content, name, bytes: bytes.toString() };
      });

  it('by-message (images of messages) and by-guild (per-channel settings): moved, ids remapped, gone from the source', () => {
    const a = database(guild, ['apple', 'pear']);
    const b = database('200000000000000009', ['plum', 'fig', 'kiwi']);
    expect(schemaProblem(a.db, rules)).toBeNull();

    copyServer(a.db, b.db, guild, { rules });
    deleteServer(a.db, guild, rules);

    expect(images(b)).toEqual([
      { content: 'plum', name: 'plum.png', bytes: 'plum' },
      { content: 'fig', name: 'fig.png', bytes: 'fig' },
      { content: 'kiwi', name: 'kiwi.png', bytes: 'kiwi' },
      { content: 'apple', name: 'apple.png', bytes: 'apple' },
      { content: 'pear', name: 'pear.png', bytes: 'pear' },
    ]);
    expect(images(a)).toEqual([]);
    expect(b.db.prepare('SELECT * FROM channel_settings WHERE guild_id = ?').all(guild)).toEqual([
      { channel_id: `${guild}-channel`, guild_id: guild, value: 'apple,pear' },
    ]);
    expect(a.db.prepare('SELECT count(*) FROM channel_settings').pluck().get()).toBe(0);
    expect(planMove(a.db, b.db, guild, rules).state).toBe('moved');
  });
});

describe('settings changes (setting_changes) and the persona a run used', () => {
  /** A database with a conversation of `server`, `personas` set in its channel in turn, and a run under the last. */
  function database(server: string, personas: string[]): Store {
    const { store } = tempStore();
    const conversation = store.conversations.ensure({
      key: `discord:${server}-thread`,
      title: 't',
      guildId: server,
      channelId: `${server}-channel`,
      startedById: null,
      startedByName: null,
    });
    for (const persona of personas)
      store.placeSettings.change([
        {
          guildId: server,
          scope: 'channel',
          scopeId: `${server}-channel`,
          key: 'persona',
          value: persona,
          changedById: 'ada',
          changedByName: 'Ada',
        },
      ]);
    const version = store.db.prepare('SELECT max(id) FROM setting_changes').pluck().get() as number;
    store.db.prepare("INSERT INTO instances VALUES ('i', 'bot', 1, 'h', 0, 0, 0)").run();
    store.db
      .prepare(
        "INSERT INTO runs (id, conversation_id, instance_id, trigger_message_ids, status, model, started_at, persona_version) VALUES (?, ?, 'i', '[]', 'answered', 'm', 0, ?)",
      )
      .run(`run-of-${server}`, conversation.id, version);
    return store;
  }

  /** The persona text each run of the server names by its version. */
  const personasOfRuns = (store: Store, server: string) =>
    store.db
      .prepare(
        'SELECT r.id, s.value FROM runs r JOIN setting_changes s ON s.id = r.persona_version WHERE s.guild_id = ? ORDER BY r.id',
      )
      .all(server);

  it('move with their server; a run still names the persona it used, by the change’s new id', () => {
    const a = database(guild, ['a pirate', 'a strict tutor']);
    const b = database('200000000000000009', ['a poet', 'a chemist', 'a gardener']);
    copyServer(a.db, b.db, guild);
    deleteServer(a.db, guild);

    expect(personasOfRuns(b, guild)).toEqual([{ id: `run-of-${guild}`, value: 'a strict tutor' }]);
    expect(personasOfRuns(b, '200000000000000009')).toEqual([{ id: 'run-of-200000000000000009', value: 'a gardener' }]);
    // The channel's persona now is still the newest change there.
    expect(b.placeSettings.at('channel', `${guild}-channel`)).toMatchObject([
      { key: 'persona', value: 'a strict tutor' },
    ]);
    expect(a.db.prepare('SELECT count(*) FROM setting_changes').pluck().get()).toBe(0);
  });
});
