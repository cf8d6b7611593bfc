import type { Database } from 'better-sqlite3';

export interface ReminderRow {
  id: number;
  guild_id: string | null;
  channel_id: string;
  user_id: string;
  text: string;
  due_at: number;
  created_at: number;
  sent_at: number | null;
}

export function createReminderQueries(db: Database) {
  const insert = db.prepare<[string | null, string, string, string, number, number]>(
    'INSERT INTO reminders (guild_id, channel_id, user_id, text, due_at, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const due = db.prepare<[number, number], ReminderRow>('SELECT * FROM reminders WHERE sent_at IS NULL AND due_at <= ? ORDER BY due_at LIMIT ?');
  // Claimed by marking it sent, in one statement: of two processes, only one gets `changes = 1`.
  const claim = db.prepare<[number, number]>('UPDATE reminders SET sent_at = ? WHERE id = ? AND sent_at IS NULL');
  const pending = db.prepare<[string], number>('SELECT count(*) FROM reminders WHERE user_id = ? AND sent_at IS NULL').pluck();
  return {
    add: (reminder: { guildId: string | null; channelId: string; userId: string; text: string; dueAt: number }, now = Date.now()) =>
      Number(insert.run(reminder.guildId, reminder.channelId, reminder.userId, reminder.text, reminder.dueAt, now).lastInsertRowid),
    due: (now: number, limit = 50) => due.all(now, limit),
    /** Marks the reminder sent; false if it already was (so it is never posted twice). */
    claim: (id: number, now = Date.now()) => claim.run(now, id).changes === 1,
    pendingFor: (userId: string) => pending.get(userId) ?? 0,
  };
}

export type ReminderQueries = ReturnType<typeof createReminderQueries>;
