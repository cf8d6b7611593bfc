/**
 * `/forget-me`: a member's data in one Discord server, or in their direct messages with the bot
 * (`guild` null: their DM conversation, which has no server), counted or deleted. What goes: the member's
 * messages (their images with them, ON DELETE CASCADE), the runs those messages started and the
 * tool calls they made with `/tool` (their steps with them), what those runs wrote into memory
 * (answers, tool calls and results), and
 * the member's reminders, the facts they asked the bot to remember there (member_facts), the documents of the server's
 * knowledge that are their messages (knowledge_documents with author_id), and the member's reports of answers (the reports of others on the runs
 * that go, go with them: ON DELETE CASCADE). A thread the member started keeps the others' messages, under a neutral
 * title (it was the first words of the member's message). Others' messages stay.
 * A running summary that covers one of the member's messages goes with it (a trigger of migration
 * 15), and so do the summary runs that read them (started by them, as far as the step log says),
 * and `/summarize`'s runs in the place that read their messages or were asked by them (db/catch-up-runs.ts).
 *
 * The connection deletes with `secure_delete` on (db/open-database.ts) and the search index with
 * FTS5's 'secure-delete' (migration 11), so the words are overwritten, not only unlinked; a
 * checkpoint then truncates the WAL, which still held the pages as they were
 * (https://www.sqlite.org/pragma.html#pragma_wal_checkpoint). The `forgets` table records that a
 * forget happened: who, when, and the counts, never the words; so does the forgets journal beside
 * the database, which a restore does not replace (db/forget-journal.ts).
 */
import type { Database } from 'better-sqlite3';
import { forgetCatchUps } from './catch-up-runs.ts';
import { directMessageConversation, directMessagesServerId } from './conversations.ts';
import { forgetQuotes, forgetSummaries } from './forget-copies.ts';
import { journalForget, recordedPlace } from './forget-journal.ts';
import { directCallModel } from './runs.ts';

/**
 * The conversations of the place, on the conversations table named `alias`: a server's, or with no
 * server (null) the DMs, or for a terminal user (`terminal:NAME`, src/chat.ts) the terminal's.
 */
const inPlace = (guild: string | null, alias: string, user: string) =>
  guild !== null
    ? `${alias}.guild_id = :guild`
    : user.startsWith('terminal:')
      ? `${alias}.guild_id IS NULL AND ${alias}.key LIKE 'terminal:%'` // terminalConversationKey (src/conversation/conversation-keys.ts)
      : directMessageConversation(alias);
/** The rows of the place in a table with a guild_id: a reminder set in a DM has none (a report always has one). */
const withGuild = (guild: string | null) => (guild === null ? 'guild_id IS NULL' : 'guild_id = :guild');

/** The member's remembered facts of the place: a server's, or their DMs' ('@me'); a terminal user has none. */
const factsOf = (guild: string | null, user: string) =>
  guild !== null ? 'guild_id = :guild' : user.startsWith('terminal:') ? '0' : `guild_id = '${directMessagesServerId}'`;

/** How many rows of each kind go (or went). */
export interface ForgetCounts {
  messages: number;
  images: number;
  /** The runs that answered the member's messages. */
  runs: number;
  /** The tool calls the member made with `/tool`. */
  toolCalls: number;
  /** What those runs wrote into memory (answers, tool calls and results). */
  answers: number;
  steps: number;
  reminders: number;
  /** Reports the member made of the bot's answers. */
  reports: number;
  /** Facts the member asked the bot to remember (member memory). */
  facts: number;
  /** Schedules the member set (`/schedule`): their prompt and name are the member's words. */
  schedules: number;
  /**
   * Documents of the server's knowledge that are the member's words: their Discord messages a
   * moderator added ("Add to knowledge", pins). What the member added as a moderator (files, pages,
   * others' messages) is the server's and stays (docs/knowledge.md).
   */
  knowledgeDocuments: number;
}

/** The title a thread the member started keeps: its old one was their words. */
export const forgottenTitle = 'A conversation (its first message was forgotten)';

// Temporary tables hold the ids for the statements below: no list of ids bound one by one.
const collect = `
  CREATE TEMP TABLE IF NOT EXISTS forget_messages (id INTEGER PRIMARY KEY);
  CREATE TEMP TABLE IF NOT EXISTS forget_runs (id TEXT PRIMARY KEY);
  DELETE FROM temp.forget_messages;
  DELETE FROM temp.forget_runs;
`;
const memberMessages = (guild: string | null, user: string) => `
  INSERT INTO temp.forget_messages (id)
  SELECT m.id FROM messages m JOIN conversations c ON c.id = m.conversation_id
  WHERE ${inPlace(guild, 'c', user)} AND m.role = 'user' AND m.author_id = :user`;
// A run answers the batch of messages that started it: if one of them is the member's, its answer may repeat their words.
const startedRuns = (guild: string | null, user: string) => `
  INSERT OR IGNORE INTO temp.forget_runs (id)
  SELECT r.id FROM runs r JOIN conversations c ON c.id = r.conversation_id, json_each(r.trigger_message_ids) t
  WHERE ${inPlace(guild, 'c', user)} AND t.value IN (SELECT id FROM temp.forget_messages)`;

// The tool calls the member made with /tool: their arguments are the member's words (and the result may repeat them).
const directCalls = (guild: string | null, user: string) => `
  INSERT OR IGNORE INTO temp.forget_runs (id)
  SELECT r.id FROM runs r JOIN conversations c ON c.id = r.conversation_id
  WHERE ${inPlace(guild, 'c', user)} AND r.model = :direct`;

/** Named parameters: better-sqlite3 refuses one the statement does not use (`:guild` for DMs). */
const parameters = (guild: string | null, user: string): Record<string, string> =>
  guild === null ? { user } : { guild, user };

function count(db: Database, guild: string | null, user: string): ForgetCounts {
  const one = (sql: string, values: Record<string, string> = {}) => db.prepare(sql).pluck().get(values) as number;
  const direct = { direct: directCallModel(user) };
  return {
    messages: one('SELECT count(*) FROM temp.forget_messages'),
    images: one('SELECT count(*) FROM message_images WHERE message_id IN (SELECT id FROM temp.forget_messages)'),
    runs: one('SELECT count(*) FROM runs WHERE id IN (SELECT id FROM temp.forget_runs) AND model <> :direct', direct),
    toolCalls: one(
      'SELECT count(*) FROM runs WHERE id IN (SELECT id FROM temp.forget_runs) AND model = :direct',
      direct,
    ),
    answers: one('SELECT count(*) FROM messages WHERE run_id IN (SELECT id FROM temp.forget_runs)'),
    steps: one('SELECT count(*) FROM steps WHERE run_id IN (SELECT id FROM temp.forget_runs)'),
    // Reminders are the member's one-off schedules (kind 'reminder'), set in a server or a DM.
    reminders: one(
      `SELECT count(*) FROM schedules WHERE ${withGuild(guild)} AND kind = 'reminder' AND created_by_id = :user`,
      parameters(guild, user),
    ),
    // Reports are made in servers only: in direct messages there are none (guild_id is never null).
    reports: one(
      `SELECT count(*) FROM answer_reports WHERE ${withGuild(guild)} AND reporter_id = :user`,
      parameters(guild, user),
    ),
    facts: one(
      `SELECT count(*) FROM member_facts WHERE ${factsOf(guild, user)} AND user_id = :user`,
      parameters(guild, user),
    ),
    // Schedules are set in servers only.
    schedules:
      guild === null
        ? 0
        : one("SELECT count(*) FROM schedules WHERE guild_id = :guild AND kind = 'routine' AND created_by_id = :user", {
            guild,
            user,
          }),
    // Knowledge is a server's: none in DMs.
    knowledgeDocuments:
      guild === null
        ? 0
        : one('SELECT count(*) FROM knowledge_documents WHERE guild_id = :guild AND author_id = :user', {
            guild,
            user,
          }),
  };
}

function gather(db: Database, guild: string | null, user: string): ForgetCounts {
  db.exec(collect);
  db.prepare(memberMessages(guild, user)).run(parameters(guild, user));
  db.prepare(startedRuns(guild, user)).run(guild === null ? {} : { guild });
  db.prepare(directCalls(guild, user)).run({ ...(guild === null ? {} : { guild }), direct: directCallModel(user) });
  return count(db, guild, user);
}

/** What `/forget-me` would delete of `user` in server `guild` (null: in DMs); changes nothing. */
export function countForget(db: Database, guild: string | null, user: string): ForgetCounts {
  return db.transaction(() => gather(db, guild, user))();
}

/**
 * Deletes it, records the forget, and truncates the WAL. Returns what went, and the Discord threads
 * of the conversations the member started: named after their words, for the caller to rename.
 */
export function forgetMember(
  db: Database,
  guild: string | null,
  user: string,
  now = Date.now(),
  /** False when a restore applies a journalled forget again (db/forget-journal.ts): it is there already. */
  journal = true,
): { counts: ForgetCounts; startedThreads: string[] } {
  if (journal) journalForget(db, { guild_id: recordedPlace(guild, user), user_id: user, forgotten_at: now });
  const result = db
    .transaction(() => {
      const found = gather(db, guild, user);
      const values = { ...parameters(guild, user), forgotten: forgottenTitle };
      // A DM channel cannot be renamed: only the server's threads are for the caller to rename.
      const startedThreads = (
        guild === null
          ? []
          : db
              .prepare(
                'SELECT thread_id FROM conversations c WHERE c.guild_id = :guild AND c.started_by_id = :user AND c.thread_id IS NOT NULL AND c.title <> :forgotten',
              )
              .pluck()
              .all(values)
      ) as string[];
      db.prepare(
        `UPDATE conversations AS c SET title = :forgotten WHERE ${inPlace(guild, 'c', user)} AND c.started_by_id = :user AND c.title <> :forgotten`,
      ).run(values);
      // Their display name too, as the one who started it (the id stays: it names no one by itself).
      db.prepare(
        `UPDATE conversations AS c SET started_by_name = NULL WHERE ${inPlace(guild, 'c', user)} AND c.started_by_id = :user`,
      ).run(parameters(guild, user));
      // Copies of their words other runs made: search results quoting them, summaries (forget-copies.ts).
      forgetQuotes(db, inPlace(guild, 'c', user), parameters(guild, user));
      forgetSummaries(db);
      // /summarize's runs that read their words, or that they asked for (db/catch-up-runs.ts).
      forgetCatchUps(db, inPlace(guild, 'c', user), parameters(guild, user));
      // The runs' own rows first: messages.run_id is ON DELETE SET NULL, which would keep them.
      db.exec('DELETE FROM messages WHERE run_id IN (SELECT id FROM temp.forget_runs)');
      db.exec('DELETE FROM messages WHERE id IN (SELECT id FROM temp.forget_messages)');
      db.exec('DELETE FROM runs WHERE id IN (SELECT id FROM temp.forget_runs)');
      db.prepare(`DELETE FROM member_facts WHERE ${factsOf(guild, user)} AND user_id = :user`).run(
        parameters(guild, user),
      );
      // Their schedules and reminders, with the claims of their times (schedule_runs: ON DELETE CASCADE).
      db.prepare(`DELETE FROM schedules WHERE ${withGuild(guild)} AND created_by_id = :user`).run(
        parameters(guild, user),
      );
      // The knowledge documents of their messages, with their chunks, index entries and vectors (ON DELETE CASCADE, triggers).
      if (guild !== null)
        db.prepare('DELETE FROM knowledge_documents WHERE guild_id = :guild AND author_id = :user').run({
          guild,
          user,
        });
      db.prepare(`DELETE FROM answer_reports WHERE ${withGuild(guild)} AND reporter_id = :user`).run(
        parameters(guild, user),
      );
      // A report's card still owed to the log channel holds its reason, the member's words (log-entry.ts 'report').
      if (guild !== null)
        db.prepare(
          `DELETE FROM log_outbox WHERE guild_id = :guild AND json_extract(entry, '$.kind') = 'report' AND json_extract(entry, '$.reporter.id') = :user`,
        ).run(parameters(guild, user));
      db.prepare('INSERT INTO forgets (guild_id, user_id, forgotten_at, counts) VALUES (?, ?, ?, ?)').run(
        recordedPlace(guild, user),
        user,
        now,
        JSON.stringify(found),
      );
      return { counts: found, startedThreads };
    })
    .immediate();
  // Busy (another connection reading) leaves part of the WAL: it is overwritten as the log wraps.
  db.pragma('wal_checkpoint(TRUNCATE)');
  return result;
}
