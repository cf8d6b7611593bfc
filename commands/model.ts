import { ApplicationCommandOptionType, type ChatInputCommandInteraction } from 'discord.js';
import { type CommandContext, defineCommand } from '../src/discord/interactions/command-context.ts';
import { settingsOfConversation } from '../src/place-settings/place-choice.ts';
import { changeBy } from '../src/discord/interactions/settings-place.ts';
import { settingKeys } from '../src/place-settings/effective-settings.ts';
import { truncateLine } from '../src/text/truncate.ts';
import { inheritChoice, modelChoices } from './shared.ts';
import {
  directConversationHere,
  guildAndDirectMessages,
  personalCommand,
  privately,
  steerableConversation,
} from './shared.ts';
import { directMessagesServerId, userInstallServerId } from '../db/conversations.ts';
import { userInstallConversationKey } from '../src/conversation/conversation-keys.ts';

export const model = defineCommand({
  name: 'model',
  moderatorOnly: false,
  data: (setup) => ({
    name: 'model',
    description: 'Choose the model of this conversation (its starter or a moderator).',
    ...personalCommand(setup, guildAndDirectMessages(setup)),
    options: [
      {
        type: ApplicationCommandOptionType.String,
        name: 'model',
        description: 'One of the models allowed here.',
        required: true,
        choices: [
          ...modelChoices(setup.modelListings),
          { name: "the channel's (as before; in a DM, the operator's)", value: inheritChoice },
        ],
      },
    ],
  }),
  async execute(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const conversation = steerableConversation(interaction, context, 'choose its model');
    if (typeof conversation === 'string') return privately(interaction, conversation);
    if (!conversation.thread_id || conversation.thread_id !== interaction.channelId)
      return privately(interaction, 'Use /model in the thread of a conversation.');
    const name = interaction.options.getString('model', true);
    if (name !== inheritChoice && !context.models.entry(name))
      return privately(interaction, `The operator offers no model named "${truncateLine(name, 64)}".`);
    // What the channel says, without this thread's own choice.
    const channel = settingsOfConversation(context.store, context.models, { ...conversation, thread_id: null })!;
    if (channel.modelOnly.value && name !== inheritChoice && name !== channel.model.value)
      return privately(
        interaction,
        `The moderators keep this channel on **${channel.model.value}**: /model cannot choose another here.`,
      );
    context.store.placeSettings.change([
      changeBy(
        interaction,
        { scope: 'thread', scopeId: conversation.thread_id },
        settingKeys.model,
        name === inheritChoice ? null : name,
      ),
    ]);
    await interaction.reply({
      content:
        name === inheritChoice
          ? `${interaction.member.displayName} set this conversation back to the channel's model, **${channel.model.value}**.`
          : `${interaction.member.displayName} chose **${name}** for this conversation.`,
      allowedMentions: { parse: [] },
    });
  },
  /** In a DM: any of the operator's models; no channel to inherit from, so "inherit" is the operator's default. */
  async inDirectMessage(interaction, context) {
    const conversation = directConversationHere(interaction, context);
    if (typeof conversation === 'string') return privately(interaction, conversation);
    const name = await setOwnModel(interaction, context, directMessagesServerId, interaction.channelId);
    if (name === undefined) return;
    await interaction.reply({
      content:
        name === inheritChoice
          ? `Back to the default model, **${context.models.defaultName}**, for our conversation.`
          : `I will answer with **${name}** in our conversation.`,
      allowedMentions: { parse: [] },
    });
  },
  /**
   * Through the person's own install, where no server added the bot: the model of their conversation
   * in this place, among the operator's (no server's choice applies there: place-choice.ts).
   */
  async userInstalled(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const name = await setOwnModel(
      interaction,
      context,
      userInstallServerId,
      userInstallConversationKey(interaction.user.id, interaction.channelId),
    );
    if (name === undefined) return;
    await privately(
      interaction,
      name === inheritChoice
        ? `Back to the default model, **${context.models.defaultName}**, for what you ask me here.`
        : `I will answer with **${name}** what you ask me here.`,
    );
  },
});

/**
 * The model chosen, checked against the operator's, set for a conversation of the person's own (a
 * DM's or a user install's: no channel or moderator to ask) in `guildId`'s settings as `scopeId`.
 * Resolves with the name, or with nothing once told privately that the operator offers no such model.
 */
async function setOwnModel(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  guildId: string,
  scopeId: string,
): Promise<string | undefined> {
  const name = interaction.options.getString('model', true);
  if (name !== inheritChoice && !context.models.entry(name)) {
    await privately(interaction, `The operator offers no model named "${truncateLine(name, 64)}".`);
    return undefined;
  }
  context.store.placeSettings.change([
    {
      guildId,
      scope: 'thread',
      scopeId,
      key: settingKeys.model,
      value: name === inheritChoice ? null : name,
      changedById: interaction.user.id,
      changedByName: interaction.user.displayName,
    },
  ]);
  return name;
}
