/**
 * The model server in one log line at start-up: its profile, what the bot has learned of it, and
 * the last `npm run doctor` report, all from what is remembered. No request is sent: a probe at
 * every start would cost money (on a paid API) and time, and `npm run doctor` is there for it.
 */
import { shownURL } from './openai-transport.ts';
import type { ProviderProfile } from './profiles/profile.ts';
import { describeFixes, type ToolProtocol } from './server-fixes.ts';
import type { ServerRecord } from './server-records.ts';

/** How a check came out: fine, a gap the bot works around (or cannot), fatal, or not known. */
type CheckStatus = 'ok' | 'gap' | 'fatal' | 'unknown';

/** One line of a doctor's report. */
export interface CheckupRow {
  /** A stable id (`required-choice`, `end-to-end`…). */
  check: string;
  /** The check, for people. */
  label: string;
  status: CheckStatus;
  /** What the server did, in a few words. */
  result: string;
  /** What the bot does about it. */
  action: string;
}

/** What `npm run doctor` stores with `records.saveCheckup`, and what the start-up summary reads back. */
export interface StoredCheckup {
  /** ISO 8601. */
  checkedAt: string;
  /** The profile in use then. */
  provider: string;
  /** Whether the bot can work with this server and model: the end-to-end run answered. */
  works: boolean;
  rows: CheckupRow[];
}

export interface ServerSummary {
  /** The line, for people. */
  message: string;
  /** The same, as log fields. */
  fields: Record<string, unknown>;
}

/** The summary of a server and model, from its profile and what `records` hold of it. */
export function serverSummary(input: {
  profile: ProviderProfile;
  server: string;
  model: string;
  apiKey: string | null;
  /** TOOL_PROTOCOL. */
  toolProtocol: ToolProtocol | 'auto';
  record: ServerRecord | null;
}): ServerSummary {
  const { profile, model, record } = input;
  const server = shownURL(input.server, input.apiKey);
  const fromProfile = describeFixes(profile.fixes);
  const learned = describeFixes(record?.learned ?? {});
  const checkup = readCheckup(record?.checkup ?? null);
  const gaps = checkup?.rows.filter((row) => row.status === 'gap' || row.status === 'fatal') ?? [];
  const parts = [`model server: ${profile.name} at ${server}, model ${model}`];
  if (input.toolProtocol !== 'auto') parts.push(`TOOL_PROTOCOL=${input.toolProtocol}`);
  if (fromProfile.length > 0) parts.push(`the profile's fixes: ${fromProfile.join(', ')}`);
  parts.push(`learned: ${learned.length > 0 ? learned.join(', ') : 'nothing yet'}`);
  if (checkup === null) parts.push('never checked: run npm run doctor');
  else {
    const verdict = checkup.works ? '' : 'the bot could not work with it; ';
    const listed =
      gaps.length > 0 ? `gaps: ${gaps.map((row) => `${row.label} (${row.result})`).join(', ')}` : 'no gaps';
    parts.push(`last doctor run ${formatDate(checkup.checkedAt)}: ${verdict}${listed}`);
  }
  return {
    message: parts.join('; '),
    fields: {
      provider: profile.id,
      server,
      model,
      toolProtocol: input.toolProtocol,
      profileFixes: fromProfile,
      learned,
      lastCheckup: checkup?.checkedAt ?? null,
      works: checkup?.works ?? null,
      gaps: gaps.map((row) => row.check),
    },
  };
}

/** A stored checkup, or null when there is none or it is not in the shape this version writes. */
export function readCheckup(value: unknown): StoredCheckup | null {
  const checkup = value as Partial<StoredCheckup> | null;
  if (typeof checkup?.checkedAt !== 'string' || Number.isNaN(Date.parse(checkup.checkedAt))) return null;
  if (typeof checkup.works !== 'boolean' || !Array.isArray(checkup.rows)) return null;
  const rows = checkup.rows.filter(
    (row: Partial<CheckupRow> | null) =>
      typeof row?.check === 'string' &&
      typeof row.label === 'string' &&
      typeof row.status === 'string' &&
      typeof row.result === 'string' &&
      typeof row.action === 'string',
  );
  return { checkedAt: checkup.checkedAt, provider: String(checkup.provider ?? ''), works: checkup.works, rows };
}

/** "2025-03-01 12:00 UTC". */
export function formatDate(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
