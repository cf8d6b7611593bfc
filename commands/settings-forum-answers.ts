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

/** `/settings forum-solved-tag tag:`: the tag "Mark solved" gives a post of this forum (or every forum: `scope: server`). */
export function forumSolvedTagSubcommand(
  scopeOption: NonNullable<APIApplicationCommandSubcommandOption['options']>[number],
): APIApplicationCommandSubcommandOption {
  return {
    type: ApplicationCommandOptionType.Subcommand,
    name: 'forum-solved-tag',
    description: 'The tag "Mark solved" gives a forum post (else one named like "solved").',
    options: [
      {
        type: ApplicationCommandOptionType.String,
        name: 'tag',
        description: "The tag's name, as the forum has it.",
        required: true,
        max_length: 20,
      },
      scopeOption,
    ],
  };
}

/** Records the tag's name; in a forum post, one its forum does not have is refused. */
export async function setForumSolvedTag(
  interaction: ChatInputCommandInteraction<'cached'>,
  context: Pick<CommandContext, 'store' | 'moderatorLog'>,
  target: { scope: SettingScope; scopeId: string },
  where: string,
): Promise<void> {
  const tag = interaction.options.getString('tag', true).trim();
  const forum = interaction.channel?.isThread() ? interaction.channel.parent : null;
  const tags = forum && 'availableTags' in forum ? forum.availableTags.map((each) => each.name) : null;
  if (tags && !tags.includes(tag))
    return privately(interaction, `This forum has no tag named "${tag}". Its tags: ${tags.join(', ') || 'none'}.`);
  applySettingChanges(context, [changeBy(interaction, target, settingKeys.forumSolvedTag, tag || null)]);
  await privately(
    interaction,
    tag
      ? `"Mark solved" gives the tag **${tag}** in ${where}.`
      : `"Mark solved" looks for a tag named like "solved" in ${where}.`,
  );
}
