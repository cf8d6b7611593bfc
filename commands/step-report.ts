import {
  AttachmentBuilder,
  type InteractionReplyOptions,
  type MessageComponentInteraction,
  MessageFlags,
} from 'discord.js';
import type { AnswerReportRow } from '../db/answer-reports.ts';
import type { ConversationRow } from '../db/conversations.ts';
import type { RunRow } from '../db/runs.ts';
import type { CommandContext, CommandInteraction } from '../src/discord/interactions/command-context.ts';
import { noPings } from '../src/discord/outbound/send.ts';
import { formatRunDetail, type RunReport } from '../src/terminal/steps-report.ts';
import { runLog, type RunSummary } from './run-lines.ts';

const messageRoom = 1900;

function reportOf(context: CommandContext, run: RunRow, conversation: ConversationRow | undefined): RunReport {
  return {
    run,
    conversation: conversation ? { id: conversation.id, key: conversation.key, title: conversation.title } : null,
    steps: context.store.steps.ofRun(run.id),
    contentFlags: context.store.contentFlags.ofRun(run.id),
  };
}

/** Who asked: the author of the newest message the run answered; else who started the conversation. */
function askerOf(context: CommandContext, run: RunRow, conversation: ConversationRow | undefined): string | null {
  const triggers = JSON.parse(run.trigger_message_ids) as number[];
  const newest = triggers.length > 0 ? context.store.messages.byId(Math.max(...triggers)) : undefined;
  return newest?.author_id ?? conversation?.started_by_id ?? null;
}

/** What the run was asked: the messages it answered, in order (none for a /tool call or a summary). */
function questionOf(context: CommandContext, run: RunRow): string | null {
  const triggers = JSON.parse(run.trigger_message_ids) as number[];
  const texts = triggers.flatMap((id) => context.store.messages.byId(id)?.content ?? []);
  return texts.length > 0 ? texts.join('\n') : null;
}

/** A run as the Discord lists and logs show it. */
export function summaryOf(context: CommandContext, run: RunRow, conversation: ConversationRow | undefined): RunSummary {
  const reports = context.store.answerReports.ofRun(run.id).length;
  return {
    report: reportOf(context, run, conversation),
    placeId: conversation?.thread_id ?? conversation?.channel_id ?? null,
    askerId: askerOf(context, run, conversation),
    question: questionOf(context, run),
    reports,
  };
}

/** The step log as a file: the terminal's layout, with the reports after it. */
function logFile(report: RunReport, reports: readonly AnswerReportRow[]): AttachmentBuilder {
  const reportText = reports.map(
    (report) =>
      `reported by ${report.reporter_id} at ${new Date(report.reported_at).toISOString()}: ${report.reason ?? '(no reason given)'}`,
  );
  const text = [formatRunDetail(report), ...(reportText.length > 0 ? ['', ...reportText] : [])].join('\n');
  return new AttachmentBuilder(
    Buffer.from(`# Agent step log\n\n\`\`\`\n${text.replaceAll('```', 'ˋˋˋ')}\n\`\`\`\n`, 'utf8'),
    {
      name: `run-${report.run.id.slice(0, 8)}.md`,
    },
  );
}

/** A run's step log as a message: lines that wrap on a phone, or an attached Markdown file when too long. */
export function runLogMessage(
  context: CommandContext,
  run: RunRow,
  conversation: ConversationRow | undefined,
): Pick<InteractionReplyOptions, 'content' | 'files' | 'allowedMentions'> {
  const summary = summaryOf(context, run, conversation);
  const reports = context.store.answerReports.ofRun(run.id);
  const text = runLog(summary, reports);
  if (text.length <= messageRoom) return { content: text, allowedMentions: noPings };
  return {
    content: 'The step log is too long for a message: here it is as a file.',
    files: [logFile(summary.report, reports)],
    allowedMentions: noPings,
  };
}

/** Shows a run's step log privately. */
export async function showRunLog(
  interaction: CommandInteraction | MessageComponentInteraction<'cached'>,
  context: CommandContext,
  run: RunRow,
  conversation: ConversationRow | undefined,
): Promise<void> {
  const payload = runLogMessage(context, run, conversation);
  if (interaction.deferred) await interaction.editReply(payload);
  else await interaction.reply({ ...payload, flags: MessageFlags.Ephemeral });
}
