/**
 * Runs and their step logs as Discord shows them to moderators: short lines that wrap on a phone's
 * screen (no padded columns, no wide code block), with Discord's own mentions and relative times.
 * The terminal keeps its tables (src/terminal/steps-report.ts); both read the same rows.
 */
import { channelMention, time, TimestampStyles, userMention } from 'discord.js';
import type { AnswerReportRow } from '../db/answer-reports.ts';
import type { RunRow } from '../db/runs.ts';
import { formatElapsed } from '../src/text/duration.ts';
import { truncateLine } from '../src/text/truncate.ts';
import {
  deliveryText,
  modelText,
  type RunReport,
  statusText,
  stepLines,
  toolsUsed,
} from '../src/terminal/steps-report.ts';

/** A run with where it was and who asked, as a list line shows it. */
export interface RunSummary {
  report: RunReport;
  /** The thread (or channel) it ran in. */
  placeId: string | null;
  askerId: string | null;
  /** The messages it answered; null for a /tool call or a summary run. */
  question: string | null;
  reports: number;
}

/** Text shown in code spans (people's and the model's words): no backtick can close the span early. */
function codeSpan(text: string, max = 200): string {
  return `\`${truncateLine(text, max).replaceAll('`', 'ˋ') || ' '}\``;
}

/** "950 tok", "1.2k tok", "3.4M tok". */
function formatTokens(tokens: number): string {
  if (tokens < 1000) return `${tokens} tok`;
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(1).replace(/\.0$/, '')}k tok`;
  return `${(tokens / 1_000_000).toFixed(1).replace(/\.0$/, '')}M tok`;
}

/** The run's outcome as a mark and a word: what a moderator scans a list for. */
function outcome(run: RunRow): string {
  if (run.error_code === 'call-refused') return '⊘ refused';
  // A memory summary answered nobody: "summary answered" / "summary failed", as npm run steps says;
  // a /summarize is a "catch-up".
  const what = run.kind === 'answer' ? '' : `${run.kind} `;
  switch (run.status) {
    case 'answered':
      return `✓ ${what}answered`;
    case 'failed':
      return `✗ ${what}failed`;
    case 'stopped':
      return `■ stopped${run.stop_reason ? ` (${run.stop_reason})` : ''}`;
    case 'interrupted':
      return '↻ interrupted';
    case 'running':
      return '… running';
  }
}

function toolsText(tools: readonly string[]): string | null {
  if (tools.length === 0) return null;
  const shown = tools.slice(0, 2).join(', ');
  return truncateLine(tools.length > 2 ? `${shown} +${tools.length - 2}` : shown, 60);
}

/** One run on one line: `1a2b3c4d` ✓ answered · 2 minutes ago · @ada · #thread · calculator · 1.2k tok · ⚑ 1 */
export function runLine({ report, placeId, askerId, reports }: RunSummary): string {
  const { run } = report;
  return [
    `${codeSpan(run.id.slice(0, 8))} ${outcome(run)}`,
    time(Math.floor(run.started_at / 1000), TimestampStyles.RelativeTime),
    askerId ? userMention(askerId) : null,
    placeId ? channelMention(placeId) : null,
    toolsText(toolsUsed(report.steps)),
    formatTokens(run.total_tokens),
    reports > 0 ? `⚑ ${reports}` : null,
  ]
    .filter((part) => part !== null)
    .join(' · ');
}

/** The run's reports, one line each: who, when, why. */
function reportLines(reports: readonly AnswerReportRow[]): string[] {
  if (reports.length === 0) return [];
  return [
    `**⚑ Reported ${reports.length === 1 ? 'once' : `${reports.length} times`}**`,
    ...reports.map(
      (report) =>
        `${userMention(report.reporter_id)} ${time(Math.floor(report.reported_at / 1000), TimestampStyles.RelativeTime)}` +
        `${report.reason ? `: ${codeSpan(report.reason, 300)}` : ' (no reason given)'}`,
    ),
  ];
}

/** One run's step log: its facts as short lines, its reports, then each step as a code span that wraps. */
export function runLog(summary: RunSummary, reports: readonly AnswerReportRow[]): string {
  const { run, steps } = summary.report;
  const facts = [
    `**Run ${codeSpan(run.id)}** ${outcome(run)}`,
    ...(summary.question === null ? [] : [`question: ${codeSpan(summary.question.replace(/\s+/g, ' '), 300)}`]),
    [
      summary.placeId ? channelMention(summary.placeId) : null,
      summary.askerId ? `asked by ${userMention(summary.askerId)}` : null,
      time(Math.floor(run.started_at / 1000), TimestampStyles.ShortDateTime),
      run.ended_at === null ? null : formatElapsed(run.ended_at - run.started_at),
    ]
      .filter((part) => part !== null)
      .join(' · '),
    `status: ${statusText(run)} · delivery: ${deliveryText(run)}`,
    `model: ${codeSpan(modelText(run))}${run.persona_version === null ? '' : ` · persona v${run.persona_version}`}`,
    `tokens: ${run.prompt_tokens} prompt + ${run.completion_tokens} completion = ${run.total_tokens}`,
    ...(run.resumed_from === null ? [] : [`takes up ${codeSpan(run.resumed_from)}`]),
    ...(run.error === null
      ? []
      : [`error: ${codeSpan(run.error_code ? `${run.error} [${run.error_code}]` : run.error, 400)}`]),
  ];
  return [
    ...facts,
    ...reportLines(reports),
    steps.length === 0
      ? 'No steps were logged for this run.'
      : `**${steps.length} step${steps.length === 1 ? '' : 's'}**`,
    ...stepLines({ run, steps }).map((line) => codeSpan(line, 400)),
  ].join('\n');
}
