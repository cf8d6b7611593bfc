/**
 * A Discord server's runs, newest first, narrowed by what a moderator asks in `/steps` (who asked,
 * where, a tool, a status, since when), a page at a time. Only runs in the channels given: those
 * where the asker is a moderator (checked by the caller against Discord's permissions).
 */
import type { Database } from 'better-sqlite3';
import type { RunRow } from './runs.ts';

/**
 * What `status:` finds, each one SQL condition on a run `r`: one more status is one more entry.
 * A run refused by the daily budget is recorded failed with the code 'call-refused' (db/runs.ts).
 */
const statusConditions = {
  failed: `r.status = 'failed' AND coalesce(r.error_code, '') <> 'call-refused'`,
  refused: `r.error_code = 'call-refused'`,
  stopped: `r.status = 'stopped'`,
  reported: `EXISTS (SELECT 1 FROM answer_reports a WHERE a.run_id = r.id)`,
  // An answer a content check flagged (a flagged question starts no run: the log channel shows those).
  flagged: `EXISTS (SELECT 1 FROM content_flags f WHERE f.run_id = r.id)`,
} as const;

export type RunStatusFilter = keyof typeof statusConditions;

/** The statuses `/steps status:` offers, in the order of its choices. */
export const runStatusFilters = Object.keys(statusConditions) as RunStatusFilter[];

/** What narrows the list; null or absent: not narrowed by it. */
export interface ServerRunFilter {
  guildId: string;
  /** The channels (not threads) whose runs may be listed; a thread's runs go with its channel. */
  channelIds: readonly string[];
  /** Who asked: the author of one of the messages the run answered. */
  userId?: string | null;
  /** A channel or a thread. */
  channelId?: string | null;
  /** Runs that called this tool (its name, or the start of it: see `toolPrefix`). */
  tool?: string | null;
  /** Match `tool` as the start of a tool's name (a name cut to fit in a button's id). */
  toolPrefix?: boolean;
  status?: RunStatusFilter | null;
  /** Runs started at or after this time (ms). */
  since?: number | null;
}

/** A run as the list shows it: where it was and who asked. */
export interface ServerRunRow extends RunRow {
  channel_id: string | null;
  thread_id: string | null;
  title: string;
  /** The author of the newest message it answered; else who started the conversation. */
  asker_id: string | null;
  reports: number;
}

const where = `
  FROM runs r JOIN conversations c ON c.id = r.conversation_id
  WHERE c.guild_id = @guild
    AND c.channel_id IN (SELECT value FROM json_each(@channels))
    AND (@user IS NULL OR EXISTS (SELECT 1 FROM json_each(r.trigger_message_ids) t JOIN messages m ON m.id = t.value WHERE m.author_id = @user))
    AND (@channel IS NULL OR c.channel_id = @channel OR c.thread_id = @channel)
    AND (@tool IS NULL OR EXISTS (SELECT 1 FROM steps s WHERE s.run_id = r.id AND s.kind = 'tool-call'
      AND (s.tool_name = @tool OR (@prefix = 1 AND substr(s.tool_name, 1, length(@tool)) = @tool))))
    AND (@since IS NULL OR r.started_at >= @since)
    AND (@status IS NULL OR ${Object.entries(statusConditions)
      .map(([name, condition]) => `(@status = '${name}' AND ${condition})`)
      .join(' OR ')})`;

export function createServerRunQueries(db: Database) {
  const page = db.prepare<Record<string, unknown>, ServerRunRow>(
    `SELECT r.*, c.channel_id, c.thread_id, c.title,
       coalesce((SELECT m.author_id FROM json_each(r.trigger_message_ids) t JOIN messages m ON m.id = t.value ORDER BY m.id DESC LIMIT 1),
         c.started_by_id) AS asker_id,
       (SELECT count(*) FROM answer_reports a WHERE a.run_id = r.id) AS reports
     ${where} ORDER BY r.started_at DESC, r.rowid DESC LIMIT @limit OFFSET @offset`,
  );
  const parameters = (filter: ServerRunFilter) => ({
    guild: filter.guildId,
    channels: JSON.stringify(filter.channelIds),
    user: filter.userId ?? null,
    channel: filter.channelId ?? null,
    tool: filter.tool ?? null,
    prefix: filter.toolPrefix ? 1 : 0,
    since: filter.since ?? null,
    status: filter.status ?? null,
  });

  return {
    /**
     * The `index`th page (from 0) of `size` runs, newest first, and whether more follow. Not a
     * count of them all: that reads every run of the server, where a page stops at its last row.
     */
    page(filter: ServerRunFilter, index: number, size: number): { runs: ServerRunRow[]; more: boolean } {
      const runs = page.all({ ...parameters(filter), limit: size + 1, offset: index * size });
      return { runs: runs.slice(0, size), more: runs.length > size };
    },
  };
}
