import { AttachmentBuilder, MessageFlags } from 'discord.js';
import type { ConversationRow } from '../db/conversations.ts';
import type { RunRow } from '../db/runs.ts';
import type { CommandContext, CommandInteraction } from '../src/discord/interactions/command-context.ts';
import { noPings } from '../src/discord/outbound/send.ts';
import { formatRunDetail, formatRunsTable, type RunReport } from '../src/terminal/steps-report.ts';

const messageRoom = 1900;

export function reportOf(context: CommandContext, run: RunRow, conversation: ConversationRow | undefined): RunReport {
  return {
    run,
    conversation: conversation ? { id: conversation.id, key: conversation.key, title: conversation.title } : null,
    steps: context.store.steps.ofRun(run.id),
    contentFlags: context.store.contentFlags.ofRun(run.id),
  };
}

/** Shows a report privately: in a code block when it fits in a message, else as an attached Markdown file. */
export async function showReport(interaction: CommandInteraction, text: string, fileName: string): Promise<void> {
  const fits = text.length <= messageRoom - 8;
  const payload = fits
    ? { content: `\`\`\`\n${text.replace(/```/g, 'ˋˋˋ')}\n\`\`\``, allowedMentions: noPings }
    : {
        content: 'The step log is too long for a message: here it is as a file.',
        files: [
          new AttachmentBuilder(Buffer.from(`# Agent step log\n\n\`\`\`\n${text}\n\`\`\`\n`, 'utf8'), {
            name: fileName,
          }),
        ],
        allowedMentions: noPings,
      };
  if (interaction.deferred) await interaction.editReply(payload);
  else await interaction.reply({ ...payload, flags: MessageFlags.Ephemeral });
}

export function runsTable(context: CommandContext, conversation: ConversationRow): string {
  const runs = context.store.runs.recent(conversation.id, 10);
  if (runs.length === 0) return 'No runs in this conversation yet.';
  return `${formatRunsTable(runs.map((run) => reportOf(context, run, conversation)))}\n\n/steps run:<id> shows one run's steps.`;
}

export { formatRunDetail };
