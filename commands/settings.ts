import {
  ApplicationCommandOptionType,
  ComponentType,
  MessageFlags,
  TextInputStyle,
  type APIApplicationCommandStringOption,
  type APIApplicationCommandSubcommandOption,
} from 'discord.js';
import type { NewSettingChange, SettingScope } from '../db/place-settings.ts';
import { currentTools } from '../src/agent/tool-registry.ts';
import type { CommandContext, CommandInteraction } from '../src/discord/interactions/command-context.ts';
import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { splitMessage } from '../src/posts/split-message.ts';
import { changeBy, placeOfInteraction, scopeHere, settingsHere } from '../src/discord/interactions/settings-place.ts';
import { settingKeys, toolKey } from '../src/place-settings/effective-settings.ts';
import { describeSettings } from '../src/place-settings/describe-settings.ts';
import { safeCutIndex, truncateLine } from '../src/text/truncate.ts';
import { isServerModerator } from '../src/discord/interactions/moderation.ts';
import {
  applySettingChanges,
  describeLogChannel,
  logChannelSubcommand,
  setLogChannel,
} from './settings-log-channel.ts';
import { contentCheckSubcommand, setContentCheck } from './settings-content-check.ts';
import {
  forumAnswersSubcommand,
  forumSolvedTagSubcommand,
  setForumAnswers,
  setForumSolvedTag,
} from './settings-forum-answers.ts';
import { memberMemorySubcommand, setMemberMemory } from './settings-member-memory.ts';
import { guildOnly, inheritChoice, modelChoices, moderatorVisibility, privately } from './shared.ts';

/**
 * Longest persona: Discord takes 6,000 characters in a string option, 4,000 in a text input, so the
 * form has two boxes. https://discord.com/developers/docs/interactions/application-commands#application-command-object-application-command-option-structure
 * https://discord.com/developers/docs/components/reference#text-input
 */
const maxPersonaLength = 8000;
const optionTextLimit = 6000;
const modalBoxLimit = 4000;

const scopeOption: APIApplicationCommandStringOption = {
  type: ApplicationCommandOptionType.String,
  name: 'scope',
  description: 'This channel and its threads (the default), or the whole server.',
  choices: [
    { name: 'this channel', value: 'channel' },
    { name: 'the whole server', value: 'server' },
  ],
};

/** `/settings tools name: enabled:`: a tool, or every tool of an MCP server, switched on or off here. */
function toolsSubcommand(
  scopeOption: NonNullable<APIApplicationCommandSubcommandOption['options']>[number],
): APIApplicationCommandSubcommandOption {
  return {
    type: ApplicationCommandOptionType.Subcommand,
    name: 'tools',
    description: 'Switch a tool, or every tool of an MCP server, on or off here.',
    options: [
      {
        type: ApplicationCommandOptionType.String,
        name: 'name',
        description: 'The tool or MCP server.',
        required: true,
        autocomplete: true,
      },
      { type: ApplicationCommandOptionType.Boolean, name: 'enabled', description: 'On or off.', required: true },
      scopeOption,
    ],
  };
}

export const settings = defineCommand({
  name: 'settings',
  moderatorOnly: true,
  data: (setup) => ({
    name: 'settings',
    description: 'Moderators: the persona, model and tools of this channel or the whole server.',
    ...moderatorVisibility(setup),
    ...guildOnly,
    options: [
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: 'show',
        description: 'What applies here, and who set it.',
      },
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: 'persona',
        description: "The bot's persona here, added to its rules. Leave text out for a box for long ones.",
        options: [
          {
            type: ApplicationCommandOptionType.String,
            name: 'text',
            description: 'Who the bot is here and how it talks (leave out to write or clear it in a box).',
            max_length: optionTextLimit,
          },
          scopeOption,
        ],
      },
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: 'model',
        description: 'The model used here.',
        options: [
          {
            type: ApplicationCommandOptionType.String,
            name: 'model',
            description: 'One of the models the operator offers.',
            required: true,
            choices: [
              ...modelChoices(setup.modelListings),
              { name: 'inherit (from the server, or the default)', value: inheritChoice },
            ],
          },
          {
            type: ApplicationCommandOptionType.Boolean,
            name: 'only',
            description: 'Threads here keep this model: /model cannot choose another.',
          },
          scopeOption,
        ],
      },
      toolsSubcommand(scopeOption),
      contentCheckSubcommand(scopeOption),
      forumAnswersSubcommand(scopeOption),
      forumSolvedTagSubcommand(scopeOption),
      memberMemorySubcommand,
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: 'reset',
        description: 'Clear every setting made for this channel (or the server): it inherits again.',
        options: [scopeOption],
      },
      logChannelSubcommand,
    ],
  }),
  async execute(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const subcommand = interaction.options.getSubcommand();
    const scope = (interaction.options.getString('scope') ?? 'channel') as SettingScope;
    if (subcommand === 'show') return show(interaction, context);
    if (subcommand === 'log-channel') return setLogChannel(interaction, context);
    if (subcommand === 'member-memory') return setMemberMemory(interaction, context);
    const target = scopeHere(interaction, context, scope);
    if (typeof target === 'string') return privately(interaction, target);
    const change = (key: string, value: string | null) => changeBy(interaction, target, key, value);
    const where = scope === 'server' ? 'the whole server' : 'this channel and its threads';
    const { placeSettings } = context.store;
    const apply = (changes: readonly NewSettingChange[]) => applySettingChanges(context, changes);

    if (subcommand === 'persona') {
      const text = interaction.options.getString('text');
      if (text === null) return askForPersona(interaction, context, scope);
      apply([change(settingKeys.persona, text.trim() || null)]);
      return privately(interaction, text.trim() ? `Persona set for ${where}.` : `Persona cleared for ${where}.`);
    }
    if (subcommand === 'model') {
      const name = interaction.options.getString('model', true);
      const only = interaction.options.getBoolean('only');
      if (name !== inheritChoice && !context.models.entry(name))
        return privately(interaction, `The operator offers no model named "${truncateLine(name, 64)}".`);
      apply([
        change(settingKeys.model, name === inheritChoice ? null : name),
        // 'no', not a clearing null: a channel may undo its server's "threads keep it".
        ...(only === null ? [] : [change(settingKeys.modelOnly, only ? 'yes' : 'no')]),
      ]);
      return privately(
        interaction,
        name === inheritChoice
          ? `The model for ${where} is inherited again.`
          : `Model for ${where}: **${name}**${only ? ' (threads keep it)' : ''}.`,
      );
    }
    if (subcommand === 'tools') {
      const name = interaction.options.getString('name', true);
      const enabled = interaction.options.getBoolean('enabled', true);
      if (!toolNames(context).includes(name))
        return privately(interaction, `I have no tool or MCP server named "${truncateLine(name, 64)}".`);
      apply([change(toolKey(name), enabled ? 'on' : 'off')]);
      return privately(interaction, `**${name}** is ${enabled ? 'on' : 'off'} for ${where}.`);
    }
    if (subcommand === 'content-check') return setContentCheck(interaction, context, target, where);
    if (subcommand === 'forum-answers') return setForumAnswers(interaction, context, target, where);
    if (subcommand === 'forum-solved-tag') return setForumSolvedTag(interaction, context, target, where);
    if (subcommand === 'reset') {
      // The log channel is not one of the place's ways of answering: `/settings log-channel` alone clears it.
      const set = placeSettings
        .at(target.scope, target.scopeId)
        .filter((row) => row.value !== null && row.key !== settingKeys.logChannel);
      apply(set.map((row) => change(row.key, null)));
      return privately(
        interaction,
        set.length > 0
          ? `Cleared ${set.length} setting${set.length === 1 ? '' : 's'} of ${where}: it inherits them again.`
          : `Nothing was set for ${where}.`,
      );
    }
  },
  async autocomplete(interaction, context) {
    const typed = interaction.options.getFocused().toLowerCase();
    await interaction.respond(
      toolNames(context)
        .filter((name) => name.toLowerCase().includes(typed))
        .slice(0, 25)
        .map((name) => ({ name, value: name })),
    );
  },
  async modalSubmit(interaction, context) {
    const scope = interaction.customId.split(':')[1] === 'server' ? 'server' : 'channel';
    const target = scopeHere(interaction, context, scope);
    if (typeof target === 'string')
      return void (await interaction.reply({ content: target, flags: MessageFlags.Ephemeral }));
    const text = ['persona', 'persona-more']
      .map((id) => interaction.fields.getTextInputValue(id))
      .join('')
      .trim();
    applySettingChanges(context, [changeBy(interaction, target, settingKeys.persona, text || null)]);
    const where = scope === 'server' ? 'the whole server' : 'this channel and its threads';
    await interaction.reply({
      content: text ? `Persona set for ${where}.` : `Persona cleared for ${where}.`,
      flags: MessageFlags.Ephemeral,
      allowedMentions: { parse: [] },
    });
  },
});

/** The tools and MCP servers a moderator may switch: the built-in tools, every server's tools, the servers. */
function toolNames(context: CommandContext): string[] {
  return [
    ...currentTools(context.tools, context.toolServers).map((tool) => tool.name),
    ...context.toolServers.map((server) => server.name),
  ];
}

async function show(interaction: CommandInteraction, context: CommandContext): Promise<void> {
  const settings = settingsHere(interaction, context);
  // A moderator of this channel only sees the changes that apply here, not other channels' (a private one's persona).
  const place = placeOfInteraction(interaction);
  const appliesHere = (row: { scope: SettingScope; scope_id: string }) =>
    row.scope === 'server' || row.scope_id === place.channelId || row.scope_id === place.threadId;
  const recent = isServerModerator(interaction.member, context.moderatorRoleIds)
    ? context.store.placeSettings.recent(interaction.guildId, 5)
    : context.store.placeSettings.recent(interaction.guildId, 200).filter(appliesHere).slice(0, 5);
  // 24 models with their descriptions pass one message: the rest follow, private too.
  const checks = context.contentChecks?.kind ?? 'off';
  const described = `${describeSettings(settings, context.models.entries, recent, checks)}\n${describeLogChannel(context, interaction.guildId)}`;
  for (const piece of splitMessage(described)) await privately(interaction, piece);
}

/**
 * A box for a persona longer than an option takes, filled with the one set at that scope itself: not
 * one it inherits, which, sent back unchanged, would become a copy the server's later edits miss.
 */
async function askForPersona(
  interaction: CommandInteraction,
  context: CommandContext,
  scope: SettingScope,
): Promise<void> {
  const target = scopeHere(interaction, context, scope);
  const current =
    typeof target === 'string'
      ? undefined
      : (context.store.placeSettings.at(target.scope, target.scopeId).find((row) => row.key === settingKeys.persona)
          ?.value ?? undefined);
  const cut = current ? safeCutIndex(current, modalBoxLimit) : 0;
  const box = (id: string, label: string, value: string) => ({
    type: ComponentType.ActionRow,
    components: [
      {
        type: ComponentType.TextInput,
        custom_id: id,
        label,
        style: TextInputStyle.Paragraph,
        required: false,
        max_length: modalBoxLimit,
        ...(value ? { value } : {}),
      },
    ],
  });
  // https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-response-object-modal
  await interaction.showModal({
    custom_id: `settings:${scope}`,
    title: scope === 'server' ? 'Persona for the whole server' : 'Persona for this channel',
    components: [
      box('persona', 'Persona (empty clears it)', current?.slice(0, cut) ?? ''),
      box('persona-more', 'Persona, continued', current?.slice(cut, maxPersonaLength) ?? ''),
    ],
  } as never);
}
