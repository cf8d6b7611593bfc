/**
 * The fake's buttons and select menus against the real discord.js client: a press on a component
 * of an (ephemeral) interaction answer arrives as a MESSAGE_COMPONENT interaction with its message,
 * and the bot answers by updating that message (callback 7) or with a new one (callback 4).
 */
import { describe, expect, it } from 'vitest';
import { ButtonStyle, ComponentType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import { onNextInteraction, useDiscordClientWorld } from '../../support/discord-client-world.ts';

const world = useDiscordClientWorld();

async function ready() {
  const { fake, client } = await world.login();
  await client.application!.commands.set([new SlashCommandBuilder().setName('list').setDescription('A list').toJSON()]);
  return { fake, client };
}

const rows = (page: number) => [
  {
    type: ComponentType.ActionRow,
    components: [
      {
        type: ComponentType.Button,
        custom_id: `page:${page - 1}`,
        label: 'Previous',
        style: ButtonStyle.Secondary,
        disabled: page === 0,
      },
      { type: ComponentType.Button, custom_id: `page:${page + 1}`, label: 'Next', style: ButtonStyle.Secondary },
    ],
  },
  {
    type: ComponentType.ActionRow,
    components: [{ type: ComponentType.StringSelect, custom_id: 'open', options: [{ label: 'One', value: 'one' }] }],
  },
];

describe('fake Discord: buttons and select menus', () => {
  it('a press updates the message in place (7) or answers anew (4); who ran the command stays on the message', async () => {
    const { fake, client } = await ready();
    const answered = onNextInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('expected a slash command');
      await interaction.reply({ content: 'page 0', components: rows(0), flags: MessageFlags.Ephemeral });
    });
    const command = await fake.userRunsCommand({ name: 'list', author: 'ada', channelId: fake.channels.general });
    await answered;
    const reply = await command.waitForReply();
    expect(reply.components).toHaveLength(2);
    // The client would not let anyone press a disabled button, a missing one, or pick a value not offered.
    await expect(fake.userPressesComponent({ on: command, customId: 'page:-1', author: 'ada' })).rejects.toThrow(
      'disabled',
    );
    await expect(fake.userPressesComponent({ on: command, customId: 'nope', author: 'ada' })).rejects.toThrow(
      'no component',
    );
    await expect(
      fake.userPressesComponent({ on: command, customId: 'open', author: 'ada', values: ['two'] }),
    ).rejects.toThrow('no option two');

    const pressed = onNextInteraction(client, async (interaction) => {
      if (!interaction.isButton()) throw new Error('expected a button');
      const seen = {
        customId: interaction.customId,
        by: interaction.user.id,
        askedBy: interaction.message.interactionMetadata?.user.id,
      };
      await interaction.update({ content: 'page 1', components: rows(1) });
      return seen;
    });
    const press = await fake.userPressesComponent({ on: command, customId: 'page:1', author: 'bob' });
    expect(await pressed).toEqual({ customId: 'page:1', by: fake.users.bob, askedBy: fake.users.ada });
    expect(await press.waitForReply()).toMatchObject({
      kind: 'callback',
      type: 7,
      content: 'page 1',
      ephemeral: true,
      messageId: reply.messageId,
    });

    const picked = onNextInteraction(client, async (interaction) => {
      if (!interaction.isStringSelectMenu()) throw new Error('expected a select menu');
      await interaction.reply({ content: `opened ${interaction.values.join()}`, flags: MessageFlags.Ephemeral });
    });
    // The message was updated: its new buttons are the ones pressed now.
    const pick = await fake.userPressesComponent({ on: command, customId: 'open', author: 'ada', values: ['one'] });
    await picked;
    expect(await pick.waitForReply()).toMatchObject({
      kind: 'callback',
      type: 4,
      content: 'opened one',
      ephemeral: true,
    });
    expect(fake.takeProblems()).toEqual([]);
  });
});
