/**
 * `/settings content-check enabled:`: moderators switch the operator's content checks (CONTENT_CHECK)
 * off or on again in a channel or the whole server. A place setting like the others (stored with
 * who set it, inherited thread → channel → server); settings.ts delegates this subcommand here.
 */
import {
  ApplicationCommandOptionType,
  type APIApplicationCommandSubcommandOption,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { CommandContext } from '../src/discord/interactions/command-context.ts';
import { changeBy } from '../src/discord/interactions/settings-place.ts';
import type { SettingScope } from '../db/place-settings.ts';
import { settingKeys } from '../src/place-settings/effective-settings.ts';
import { applySettingChanges } from './settings-log-channel.ts';
import { privately } from './shared.ts';

/** The subcommand as registered; `scope` is the same option as the other subcommands'. */
export function contentCheckSubcommand(
  scopeOption: NonNullable<APIApplicationCommandSubcommandOption['options']>[number],
): APIApplicationCommandSubcommandOption {
  return {
    type: ApplicationCommandOptionType.Subcommand,
    name: 'content-check',
    description: "Check questions and answers here with the operator's content check (on unless switched off).",
    options: [
      {
        type: ApplicationCommandOptionType.Boolean,
        name: 'enabled',
        description: 'On or off.',
        required: true,
      },
      scopeOption,
    ],
  };
}

/** Records the switch and says what it means, the operator's CONTENT_CHECK included. */
export async function setContentCheck(
  interaction: ChatInputCommandInteraction<'cached'>,
  context: Pick<CommandContext, 'store' | 'contentChecks' | 'moderatorLog'>,
  target: { scope: SettingScope; scopeId: string },
  where: string,
): Promise<void> {
  const enabled = interaction.options.getBoolean('enabled', true);
  // Recorded with its card for the log channel, as every /settings change is (checks off is what moderators must see).
  applySettingChanges(context, [changeBy(interaction, target, settingKeys.contentCheck, enabled ? 'on' : 'off')]);
  const operatorOff = context.contentChecks === null;
  const said = `Content checks are ${enabled ? 'on' : 'off'} for ${where}.`;
  await privately(
    interaction,
    operatorOff && enabled
      ? `${said} The operator has not turned content checks on (CONTENT_CHECK=off), so nothing is checked yet.`
      : said,
  );
}
