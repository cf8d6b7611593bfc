/**
 * `/settings member-memory enabled:`: moderators of the whole server switch member memory on or off
 * there (off unless switched on): members' facts kept with the `remember` tool and shown to the
 * model in their own runs (src/conversation/member-facts.ts). Server scope alone: a member's facts
 * are the server's, whichever channel they were told in. settings.ts delegates this subcommand here.
 */
import {
  ApplicationCommandOptionType,
  type APIApplicationCommandSubcommandOption,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { CommandContext } from '../src/discord/interactions/command-context.ts';
import { changeBy, scopeHere } from '../src/discord/interactions/settings-place.ts';
import { settingKeys } from '../src/place-settings/effective-settings.ts';
import { applySettingChanges } from './settings-log-channel.ts';
import { privately } from './shared.ts';

export const memberMemorySubcommand: APIApplicationCommandSubcommandOption = {
  type: ApplicationCommandOptionType.Subcommand,
  name: 'member-memory',
  description: 'Let members have the bot remember facts they ask it to keep (whole server; off by default).',
  options: [
    {
      type: ApplicationCommandOptionType.Boolean,
      name: 'enabled',
      description: 'On or off.',
      required: true,
    },
  ],
};

/** Records the switch for the whole server and says what it means. */
export async function setMemberMemory(
  interaction: ChatInputCommandInteraction<'cached'>,
  context: Pick<CommandContext, 'store' | 'moderatorLog' | 'moderatorRoleIds'>,
): Promise<void> {
  const target = scopeHere(interaction, context, 'server');
  if (typeof target === 'string') return privately(interaction, target);
  const enabled = interaction.options.getBoolean('enabled', true);
  applySettingChanges(context, [changeBy(interaction, target, settingKeys.memberMemory, enabled ? 'on' : 'off')]);
  await privately(
    interaction,
    enabled
      ? 'Member memory is on for the whole server: members may ask me to remember facts about themselves, which I use in their own conversations only. Each sees and removes theirs with /memory; moderators cannot read them.'
      : 'Member memory is off for the whole server: I remember nothing new, and show no remembered facts. Facts kept so far stay until their members remove them (/memory forget, /forget-me) or retention does.',
  );
}
