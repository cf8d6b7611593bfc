/**
 * The "Steps" button of a log card: the run's step log, shown only to the moderator who pressed it,
 * after checking at the press, as `/steps run:` does, that they moderate where the run took place
 * (the card may sit in a channel people who are not moderators there can read).
 */
import { type MessageComponentInteraction, MessageFlags } from 'discord.js';
import type { CommandContext } from '../src/discord/interactions/command-context.ts';
import { isModerator } from '../src/discord/interactions/moderation.ts';
import { privately } from './shared.ts';
import { showRunLog } from './step-report.ts';

export async function showStepsOnPress(interaction: MessageComponentInteraction<'cached'>, context: CommandContext) {
  const [, what, runId] = interaction.customId.split(':');
  if (what !== 'run' || !runId) return;
  const run = context.store.runs.byId(runId);
  const owner = run ? context.store.conversations.byId(run.conversation_id) : undefined;
  if (!run || owner?.guild_id !== interaction.guildId)
    return privately(interaction, 'That run is no longer on record.');
  const where =
    interaction.guild.channels.cache.get(owner.thread_id ?? owner.channel_id ?? '') ??
    interaction.guild.channels.cache.get(owner.channel_id ?? '') ??
    null;
  if (!isModerator(interaction.member, where, context.moderatorRoleIds))
    return privately(interaction, 'Only moderators of the place where that run took place can read its steps.');
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  await showRunLog(interaction, context, run, owner);
}
