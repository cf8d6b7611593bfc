import { ApplicationCommandType, MessageFlags } from 'discord.js';
import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { answerRunOf } from './answer-run.ts';
import { guildOnly, moderatorVisibility, privately } from './shared.ts';
import { showRunLog } from './step-report.ts';

/** The message context-menu command: on one of the bot's answers, opens the run behind it. */
export const agentSteps = defineCommand({
  name: 'Agent steps',
  moderatorOnly: true,
  data: (setup) => ({
    name: 'Agent steps',
    type: ApplicationCommandType.Message,
    ...moderatorVisibility(setup),
    ...guildOnly,
  }),
  async execute(interaction, context) {
    if (!interaction.isMessageContextMenuCommand()) return;
    const found = answerRunOf(interaction, context);
    if (!found)
      return privately(interaction, 'That message is not one of my answers (or its run is no longer on record).');
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    await showRunLog(interaction, context, found.run, found.conversation);
  },
});
