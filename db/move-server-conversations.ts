/**
 * Copies a server's conversations, with their runs, steps and messages, into another database,
 * inside the caller's write transaction on the target. Integer ids are the target's to give, so
 * they are remapped, and every column that refers to one with them (`conversationColumns` in
 * move-server-tables.ts lists which). Run ids are UUIDs and stay.
 *
 * Message ids are remapped keeping their order, references to messages that are gone (deleted in
 * Discord) included: memory orders a run's rows by the message it answers (`answers_id`), starts
 * after `memory_starts_after`, and finds what is left to answer by comparing ids with the newest
 * trigger, so the order is what must survive, not the values. A reference to a deleted message
 * gets an id no message has, and the target's AUTOINCREMENT counter is raised past it so that no
 * later message takes it.
 */
import type { Database } from 'better-sqlite3';
import { columnsOf, inserter, serverRowsOf } from './move-server-tables.ts';

type Row = Record<string, unknown>;

/** The ids given in the target, by the source's. */
export interface IdMaps {
  conversations: Map<number, number>;
  messages: Map<number, number>;
}

const rowsOf = (table: string) => serverRowsOf({ table, moves: 'with-conversations' });

/** Every message id the server's rows hold or refer to, ascending. */
function referencedMessageIds(source: Database, guild: string): number[] {
  const ids = new Set<number>();
  const add = (value: unknown) => {
    if (typeof value === 'number' && value > 0) ids.add(value);
  };
  for (const row of source
    .prepare<{ guild: string }, Row>(`SELECT t.id, t.group_id, t.answers_id ${rowsOf('messages')}`)
    .iterate({ guild })) {
    add(row.id);
    add(row.group_id);
    add(row.answers_id);
  }
  for (const value of source
    .prepare<{ guild: string }, number>(`SELECT t.memory_starts_after ${rowsOf('conversations')}`)
    .pluck()
    .iterate({ guild }))
    add(value);
  for (const value of source
    .prepare<{ guild: string }, string>(`SELECT t.trigger_message_ids ${rowsOf('runs')}`)
    .pluck()
    .iterate({ guild }))
    for (const id of JSON.parse(value) as unknown[]) add(id);
  for (const row of source
    .prepare<{ guild: string }, Row>(`SELECT t.first_message_id, t.last_message_id ${rowsOf('memory_summaries')}`)
    .iterate({ guild })) {
    add(row.first_message_id);
    add(row.last_message_id);
  }
  return [...ids].sort((a, b) => a - b);
}

/** Copies the server's conversations and all that hangs off them into `target`; returns the id maps. */
export function copyConversations(source: Database, target: Database, guild: string, now: number): IdMaps {
  const top = target
    .prepare<[], number>(
      `SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'messages'), 0), coalesce((SELECT max(id) FROM messages), 0))`,
    )
    .pluck()
    .get()!;
  const messages = new Map(referencedMessageIds(source, guild).map((id, index) => [id, top + index + 1]));
  const message = (id: unknown) => (typeof id === 'number' && id > 0 ? messages.get(id)! : id);
  const conversations = new Map<number, number>();

  // The processes the moved runs name (a foreign key): copied as stopped, since none runs here.
  const instanceColumns = columnsOf(target, 'instances');
  const insertInstance = inserter(target, 'instances', instanceColumns, 'ON CONFLICT (id) DO NOTHING');
  for (const row of source
    .prepare<{ guild: string }, Row>(
      `SELECT DISTINCT i.* FROM instances i WHERE i.id IN (SELECT t.instance_id ${rowsOf('runs')})`,
    )
    .iterate({ guild }))
    insertInstance({ ...row, stopped_at: row.stopped_at ?? now });

  const insertConversation = inserter(target, 'conversations', columnsOf(target, 'conversations', ['id']));
  for (const row of source
    .prepare<{ guild: string }, Row>(`SELECT t.* ${rowsOf('conversations')} ORDER BY t.id`)
    .iterate({ guild }))
    conversations.set(
      row.id as number,
      insertConversation({
        ...row,
        memory_starts_after: message(row.memory_starts_after),
        window_starts_at: 0,
        window_budget: 0,
      }),
    );

  // In start order (and rowid, as `npm run steps` lists them); a run resumed may come before the
  // one it took up: foreign keys are checked at the commit (defer_foreign_keys, set by the caller).
  const insertRun = inserter(target, 'runs', columnsOf(target, 'runs'));
  for (const row of source
    .prepare<{ guild: string }, Row>(`SELECT t.* ${rowsOf('runs')} ORDER BY t.started_at, t.rowid`)
    .iterate({ guild })) {
    const triggers = (JSON.parse(row.trigger_message_ids as string) as unknown[]).map(message);
    insertRun({
      ...row,
      conversation_id: conversations.get(row.conversation_id as number),
      trigger_message_ids: JSON.stringify(triggers),
    });
  }

  const insertStep = inserter(target, 'steps', columnsOf(target, 'steps', ['id']));
  for (const row of source
    .prepare<{ guild: string }, Row>(`SELECT t.* ${rowsOf('steps')} ORDER BY t.id`)
    .iterate({ guild }))
    insertStep(row);

  // With their ids given: the full-text index follows by its insert trigger.
  const insertMessage = inserter(target, 'messages', columnsOf(target, 'messages'));
  for (const row of source
    .prepare<{ guild: string }, Row>(`SELECT t.* ${rowsOf('messages')} ORDER BY t.id`)
    .iterate({ guild }))
    insertMessage({
      ...row,
      id: message(row.id),
      conversation_id: conversations.get(row.conversation_id as number),
      group_id: message(row.group_id),
      answers_id: message(row.answers_id),
    });

  // After the messages: a summary's range is of message ids.
  const insertSummary = inserter(target, 'memory_summaries', columnsOf(target, 'memory_summaries'));
  for (const row of source
    .prepare<{ guild: string }, Row>(`SELECT t.* ${rowsOf('memory_summaries')}`)
    .iterate({ guild }))
    insertSummary({
      ...row,
      conversation_id: conversations.get(row.conversation_id as number),
      first_message_id: message(row.first_message_id),
      last_message_id: message(row.last_message_id),
    });

  // Inserting with ids raised the counter to the highest message; a deleted one referred to may be higher.
  const highest = top + messages.size;
  if (messages.size > 0) {
    const raised = target
      .prepare<[number]>(`UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'messages'`)
      .run(highest).changes;
    if (raised === 0) target.prepare(`INSERT INTO sqlite_sequence (name, seq) VALUES ('messages', ?)`).run(highest);
  }
  return { conversations, messages };
}

/** Deletes the server's conversations and all that hangs off them (the full-text index by its delete trigger). */
export function deleteConversations(db: Database, guild: string): void {
  const ofServer = `SELECT id FROM conversations WHERE guild_id = @guild`;
  db.prepare(`DELETE FROM steps WHERE run_id IN (SELECT id FROM runs WHERE conversation_id IN (${ofServer}))`).run({
    guild,
  });
  db.prepare(`DELETE FROM messages WHERE conversation_id IN (${ofServer})`).run({ guild });
  db.prepare(`DELETE FROM runs WHERE conversation_id IN (${ofServer})`).run({ guild });
  db.prepare(`DELETE FROM conversations WHERE guild_id = @guild`).run({ guild });
}
