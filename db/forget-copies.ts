/**
 * What a forget takes besides the member's own rows (db/forget-member.ts): the copies of their words
 * that other runs made. Runs inside the forget's transaction, with `temp.forget_messages` filled.
 *
 * - A search of the conversation or the server (tools/search-conversation.ts, search-server.ts)
 *   quotes a message as a line `- NAME[ in "TITLE"], YYYY-MM-DD HH:MM UTC: …`: such a line naming
 *   the member, in any step's result or tool message of the place, becomes `- [forgotten]`.
 * - A conversation's running summary may quote them, and each summary run's step log holds what it
 *   wrote, built on the summary before: in every conversation where they wrote, the summaries and
 *   the summary runs go (the summary is made again from what is left; tokens spent stay counted).
 *
 * What others wrote about them, and the answers others were given, stay: they are the others' words
 * and conversations (docs/privacy.md).
 */
import type { Database } from 'better-sqlite3';

/** What stands where a quoted line of the member was. */
const forgottenLine = '- [forgotten]';

const escapeForPattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Lines of search results naming one of `names` as their author. */
function quotedLines(names: readonly string[]): RegExp | null {
  if (names.length === 0) return null;
  const who = names.map(escapeForPattern).join('|');
  return new RegExp(`^- (?:${who})(?: in "[^"\\n]*")?, \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC: .*$`, 'gm');
}

/** Takes the member's quoted lines out of step results and tool messages of the place (`inPlace` on `c`). */
export function forgetQuotes(db: Database, inPlace: string, parameters: Record<string, string>): void {
  const names = db
    .prepare(
      'SELECT DISTINCT author_name FROM messages WHERE id IN (SELECT id FROM temp.forget_messages) AND author_name IS NOT NULL',
    )
    .pluck()
    .all() as string[];
  const lines = quotedLines(names);
  if (lines === null) return;
  const redact = (text: string) => text.replace(lines, forgottenLine);
  const steps = db
    .prepare(
      `SELECT s.id, s.result FROM steps s JOIN runs r ON r.id = s.run_id JOIN conversations c ON c.id = r.conversation_id
       WHERE ${inPlace} AND s.result LIKE '%UTC: %'`,
    )
    .all(parameters) as { id: number; result: string }[];
  const setStep = db.prepare('UPDATE steps SET result = ? WHERE id = ?');
  for (const step of steps) if (redact(step.result) !== step.result) setStep.run(redact(step.result), step.id);
  const tools = db
    .prepare(
      `SELECT m.id, m.content FROM messages m JOIN conversations c ON c.id = m.conversation_id
       WHERE ${inPlace} AND m.role = 'tool' AND m.content LIKE '%UTC: %'`,
    )
    .all(parameters) as { id: number; content: string }[];
  const setTool = db.prepare('UPDATE messages SET content = ? WHERE id = ?');
  for (const tool of tools) if (redact(tool.content) !== tool.content) setTool.run(redact(tool.content), tool.id);
}

/** The summaries and summary runs of every conversation where the member wrote. */
export function forgetSummaries(db: Database): void {
  const conversations =
    'SELECT DISTINCT conversation_id FROM messages WHERE id IN (SELECT id FROM temp.forget_messages)';
  db.exec(`DELETE FROM memory_summaries WHERE conversation_id IN (${conversations})`);
  db.exec(`DELETE FROM runs WHERE kind = 'summary' AND conversation_id IN (${conversations})`);
}
