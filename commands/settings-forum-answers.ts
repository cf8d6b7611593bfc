/**
 * `/settings forum-answers enabled:`: moderators have every new post of a forum answered, not only
 * those that mention the bot (off by default). A place setting like the others (stored with who
 * set it, inherited channel → server): set in a forum post, it is the forum's; with `scope: server`,
 * every forum's. settings.ts delegates this subcommand here.
 */
import {
  ApplicationCommandOptionType,
  type APIApplicationCommandSubcommandOption,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { SettingScope } from '../db/place-settings.ts';
import type { CommandContext } from '../src/discord/interactions/command-context.ts';
import { changeBy } from '../src/discord/interactions/settings-place.ts';
import { settingKeys } from '../src/place-settings/effective-settings.ts';
import { applySettingChanges } from './settings-log-channel.ts';
import { privately } from './shared.ts';

/** The subcommand as registered; `scope` is the same option as the other subcommands'. */
export function forumAnswersSubcommand(
  scopeOption: NonNullable<APIApplicationCommandSubcommandOption['options']>[number],
): APIApplicationCommandSubcommandOption {
  return {
    type: ApplicationCommandOptionType.Subcommand,
    name: 'forum-answers',
    description: 'Answer every new post of this forum, not only those that mention the bot (off unless on).',
    options: [
      { type: ApplicationCommandOptionType.Boolean, name: 'enabled', description: 'On or off.', required: true },
      scopeOption,
    ],
  };
}

/** Records the switch and says what it means. */
export async function setForumAnswers(
  interaction: ChatInputCommandInteraction<'cached'>,
  context: Pick<CommandContext, 'store' | 'moderatorLog'>,
  target: { scope: SettingScope; scopeId: string },
  where: string,
): Promise<void> {
  const enabled = interaction.options.getBoolean('enabled', true);
  applySettingChanges(context, [changeBy(interaction, target, settingKeys.forumAnswers, enabled ? 'on' : 'off')]);
  await privately(
    interaction,
    enabled
      ? `Every new forum post in ${where} is answered now, mention or not.`
      : `Only forum posts that mention me are answered in ${where} now.`,
  );
}
