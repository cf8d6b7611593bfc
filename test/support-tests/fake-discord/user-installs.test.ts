/**
 * The fake's user-installed interactions against the real discord.js client, as Discord documents
 * them: offered only for commands installable to a user in the place's context, carrying the user
 * install as their only authorizing owner, at most 5 follow-ups, and no REST access to the place.
 */
import { describe, expect, it } from 'vitest';
import { ApplicationIntegrationType, DiscordAPIError, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import { onNextInteraction, useDiscordClientWorld } from '../../support/discord-client-world.ts';

const world = useDiscordClientWorld();

const personal = new SlashCommandBuilder()
  .setName('ask')
  .setDescription('Ask')
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel);
const serverOnly = new SlashCommandBuilder().setName('reset').setDescription('Reset');

async function ready() {
  const { fake, client } = await world.login();
  await client.application!.commands.set([personal.toJSON(), serverOnly.toJSON()]);
  return { fake, client };
}

describe('fake Discord: user-installed interactions', () => {
  it('comes authorised by the user install alone, in context 0 of a server the client does not know', async () => {
    const { fake, client } = await ready();
    const place = fake.addAbsentPlace('server');
    const seen = onNextInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('not a command');
      await interaction.reply({ content: 'hi' });
      return {
        owners: interaction.authorizingIntegrationOwners.toJSON(),
        context: interaction.context,
        cached: interaction.inCachedGuild(),
        guildId: interaction.guildId,
      };
    });
    await fake.userRunsCommand({ name: 'ask', author: 'bob', channelId: place.channelId });
    expect(await seen).toEqual({
      owners: { '1': '200000000000000002' }, // bob's id: his install authorised it
      context: InteractionContextType.Guild,
      cached: false,
      guildId: place.guildId,
    });
  });

  it('in a group DM: context 2, and the app may attach files, embed links and mention everyone', async () => {
    const { fake, client } = await ready();
    const place = fake.addAbsentPlace('group-dm');
    const seen = onNextInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('not a command');
      await interaction.reply({ content: 'hi' });
      return { context: interaction.context, permissions: interaction.appPermissions.toArray().sort() };
    });
    await fake.userRunsCommand({ name: 'ask', author: 'bob', channelId: place.channelId });
    expect(await seen).toEqual({
      context: InteractionContextType.PrivateChannel,
      permissions: ['AttachFiles', 'EmbedLinks', 'MentionEveryone'],
    });
  });

  it('refuses a sixth follow-up with 40094, and the bot any REST call to the place with 403 Missing Access', async () => {
    const { fake, client } = await ready();
    const place = fake.addAbsentPlace('group-dm');
    const answered = onNextInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('not a command');
      await interaction.deferReply();
      await interaction.editReply('first');
      for (let index = 1; index <= 5; index++) await interaction.followUp(`follow-up ${index}`);
      const sixth = await interaction.followUp('one too many').catch((error: unknown) => error);
      const read = await client.rest.get(`/channels/${place.channelId}/messages`).catch((error: unknown) => error);
      return { sixth, read };
    });
    await fake.userRunsCommand({ name: 'ask', author: 'bob', channelId: place.channelId });
    const { sixth, read } = await answered;
    expect(sixth).toBeInstanceOf(DiscordAPIError);
    expect([(sixth as DiscordAPIError).status, (sixth as DiscordAPIError).code]).toEqual([400, 40094]);
    expect([(read as DiscordAPIError).status, (read as DiscordAPIError).code]).toEqual([403, 50001]);
  });

  it('offers there only commands installable to a user', async () => {
    const { fake } = await ready();
    const place = fake.addAbsentPlace('server');
    await expect(fake.userRunsCommand({ name: 'reset', author: 'bob', channelId: place.channelId })).rejects.toThrow(
      /integration_types lacks 1/,
    );
  });
});
