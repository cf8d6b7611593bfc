/**
 * What a `/steps` list shows (its filters and page), read from the command's options and kept in
 * its buttons' custom ids, so that Previous / Next work without any state in the bot, after a
 * restart too. A custom id holds 100 characters at most
 * (https://discord.com/developers/docs/components/reference#anatomy-of-a-component): ids are
 * written in base 36, and a tool's name too long for the rest is kept as its start.
 */
import type { ChatInputCommandInteraction } from 'discord.js';
import { runStatusFilters, type RunStatusFilter } from '../db/server-runs.ts';
import { parseDuration } from '../src/text/duration.ts';

/** A list's filters and page. */
export interface StepsQuery {
  userId: string | null;
  channelId: string | null;
  tool: string | null;
  /** `tool` is the start of a tool's name (cut to fit in a custom id). */
  toolPrefix: boolean;
  status: RunStatusFilter | null;
  since: number | null;
  /** From 0. */
  page: number;
}

const customIdRoom = 100;
/** The custom id's first part: the command's name, as the router finds its handler (command-router.ts). */
const pageIdStart = 'steps:page:';
export const openRunId = 'steps:open';

const toBase36 = (id: string | number | null) => (id === null ? '' : BigInt(id).toString(36));
const fromBase36 = (text: string): string | null =>
  /^[0-9a-z]+$/.test(text)
    ? text
        .split('')
        .reduce((value, digit) => value * 36n + BigInt(parseInt(digit, 36)), 0n)
        .toString()
    : null;

/** The custom id of a button that shows `page` of the same list. */
export function pageCustomId(query: StepsQuery, page: number): string {
  const head = [
    `${pageIdStart}${page}`,
    toBase36(query.userId),
    toBase36(query.channelId),
    toBase36(query.since),
    query.status === null ? '' : String(runStatusFilters.indexOf(query.status)),
  ].join(':');
  if (query.tool === null) return `${head}:`;
  const room = customIdRoom - head.length - 2;
  const cut = query.tool.length > room;
  return `${head}:${cut || query.toolPrefix ? '~' : ''}${query.tool.slice(0, cut ? room - 1 : undefined)}`;
}

/** The list a page button shows; null for an id this version did not write. */
export function queryOfPageId(customId: string): StepsQuery | null {
  if (!customId.startsWith(pageIdStart)) return null;
  const [page, user, channel, since, status, ...tool] = customId.slice(pageIdStart.length).split(':');
  const toolText = tool.join(':');
  const pageNumber = Number(page);
  if (!Number.isSafeInteger(pageNumber) || pageNumber < 0 || status === undefined || since === undefined) return null;
  return {
    page: pageNumber,
    userId: fromBase36(user ?? ''),
    channelId: fromBase36(channel ?? ''),
    since: since === '' ? null : Number(fromBase36(since)),
    status: status === '' ? null : (runStatusFilters[Number(status)] ?? null),
    tool: toolText === '' ? null : toolText.replace(/^~/, ''),
    toolPrefix: toolText.startsWith('~'),
  };
}

/** `since:` as a span back from now ("2h", "3d") or a date ("2026-11-20", an ISO date-time); else null. */
function parseSince(text: string, now = Date.now()): number | null {
  const span = parseDuration(text);
  if (span !== null) return Math.max(0, now - span);
  // Only dates that start like ISO 8601: Date.parse takes many other forms, differently per engine.
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return null;
  const at = Date.parse(text.trim());
  return Number.isNaN(at) ? null : Math.max(0, at);
}

/** The list the command's options ask for, or the sentence that says what is wrong with them. */
export function queryOfOptions(
  interaction: ChatInputCommandInteraction<'cached'>,
  now = Date.now(),
): StepsQuery | string {
  const sinceText = interaction.options.getString('since');
  const since = sinceText === null ? null : parseSince(sinceText, now);
  if (sinceText !== null && since === null)
    return `I cannot read "since: ${sinceText}": give a span back from now (45m, 2h, 3d, 1w) or a date (2026-11-20).`;
  const status = interaction.options.getString('status');
  return {
    userId: interaction.options.getUser('user')?.id ?? null,
    channelId: interaction.options.getChannel('channel')?.id ?? null,
    tool: interaction.options.getString('tool'),
    toolPrefix: false,
    status: runStatusFilters.includes(status as RunStatusFilter) ? (status as RunStatusFilter) : null,
    since,
    page: 0,
  };
}

/** Whether the options narrow the list at all (in a thread, none means "this thread's runs"). */
export function isNarrowed(query: StepsQuery): boolean {
  return [query.userId, query.channelId, query.tool, query.status, query.since].some((value) => value !== null);
}
