/**
 * What the moderators' log channel is told, as data: one entry per fact, stored in the outbox
 * (db/log-outbox.ts) in the transaction that records the fact, and rendered as a card (log-cards.ts)
 * when it is posted. Discord-free: the other parts call `moderatorLog.record(guildId, entry)`
 * (src/discord/moderator-log/moderator-log.ts) with one of these.
 */

/** A member, as the log names them: their id (a mention in the card) and their name then. */
export interface LoggedPerson {
  id: string;
  name: string;
}

/** One entry of the log. */
export type LogEntry =
  /** A run ended and was delivered (answered, failed, stopped, refused): its card is read from the step log. */
  | { kind: 'run'; runId: string }
  /** A message not answered: its author is past their rate (USER_MESSAGES_PER_MINUTE) or the server's daily budget is spent. */
  | { kind: 'refused'; who: LoggedPerson; channelId: string; reason: string }
  /** Settings changed together by one moderator (a reset clears several at once). */
  | {
      kind: 'settings';
      by: LoggedPerson;
      changes: { scope: 'server' | 'channel' | 'thread'; scopeId: string; key: string; value: string | null }[];
    }
  /** A member reported an answer. */
  | {
      kind: 'report';
      runId: string;
      reporter: LoggedPerson;
      reason: string | null;
      /** The reported message's link (absent in cards owed before it was added). */
      answerLink?: string;
    }
  /** A content check flagged a question or an answer. */
  | {
      kind: 'flag';
      /** The thread (or channel) of the conversation. */
      channelId: string;
      runId: string | null;
      part: 'question' | 'answer';
      categories: { name: string; score: number | null }[];
    }
  /** A tool the model asked for was refused in that place (switched off there, or for moderators only). */
  | { kind: 'tool-refused'; tool: string; channelId: string; runId: string | null; reason: string }
  /** A destructive MCP tool, confirmed or cancelled by the person asked. */
  | {
      kind: 'destructive';
      tool: string;
      /** Who answered; for `timed-out`, who was asked. */
      by: LoggedPerson;
      outcome: 'confirmed' | 'cancelled' | 'timed-out';
      channelId: string;
      runId: string | null;
    }
  /** A member's `/forget-me`: who, and how many rows of each kind went (never what they said). */
  | { kind: 'forget'; member: LoggedPerson; counts: Record<string, number> }
  /** A scheduled run that could not be started (its header or thread could not be posted): given up. */
  | { kind: 'schedule-failed'; scheduleId: number; name: string; channelId: string; reason: string };

/** An entry read back from the outbox; null for one this version cannot read (a newer bot wrote it). */
export function parseLogEntry(json: string): LogEntry | null {
  try {
    const entry = JSON.parse(json) as LogEntry;
    return typeof entry === 'object' && entry !== null && kinds.has(entry.kind) ? entry : null;
  } catch {
    return null;
  }
}

const kinds = new Set<string>([
  'run',
  'refused',
  'settings',
  'report',
  'flag',
  'tool-refused',
  'destructive',
  'forget',
  'schedule-failed',
]);

/**
 * A card as the log channel shows it: a compact embed (Discord's embed fields, without discord.js),
 * and the run whose step log its "Steps" button opens, if any.
 * https://discord.com/developers/docs/resources/message#embed-object
 */
export interface LogCard {
  title: string;
  description?: string;
  url?: string;
  color: number;
  fields?: { name: string; value: string; inline?: boolean }[];
  footer?: { text: string };
  /** ISO 8601: Discord shows it in each reader's time zone. */
  timestamp?: string;
  /** The run the card's "Steps" button opens. */
  stepsOf?: string;
}
