/**
 * The fake's application commands and interactions against the real discord.js client: commands
 * registered with `commands.set`, slash and message commands run by users, and every way of
 * answering them, with Discord's rules (one callback, within 3 s; ephemeral stays private).
 */
import { describe, expect, it } from 'vitest';
import {
  ApplicationCommandType,
  AttachmentBuilder,
  ContextMenuCommandBuilder,
  DiscordAPIError,
  DiscordjsError,
  InteractionContextType,
  MessageFlags,
  PermissionFlagsBits,
  Routes,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
  type GuildMember,
  type MessageContextMenuCommandInteraction,
} from 'discord.js';
import { onNextInteraction, useDiscordClientWorld } from '../../support/discord-client-world.ts';
import { type FakeDiscordOptions } from '../../support/fake-discord.ts';

const world = useDiscordClientWorld();

const tool = new SlashCommandBuilder()
  .setName('tool')
  .setDescription('Run a tool')
  .addSubcommand((sub) =>
    sub
      .setName('run')
      .setDescription('Run one tool')
      .addStringOption((option) => option.setName('name').setDescription('Tool name').setRequired(true))
      .addIntegerOption((option) => option.setName('count').setDescription('How many').setMinValue(1))
      .addBooleanOption((option) => option.setName('verbose').setDescription('Say more')),
  )
  .addSubcommand((sub) => sub.setName('list').setDescription('List the tools'));
const reset = new SlashCommandBuilder()
  .setName('reset')
  .setDescription('Forget the thread')
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageMessages)
  .setContexts(InteractionContextType.Guild);
const showSteps = new ContextMenuCommandBuilder().setName('Show steps').setType(ApplicationCommandType.Message);

/** Logged in, with `tool` and `Show steps` registered globally and `reset` for the guild. */
async function ready(options: FakeDiscordOptions = {}) {
  const { fake, client } = await world.login(options);
  await client.application!.commands.set([tool.toJSON(), showSteps.toJSON()]);
  await client.guilds.cache.get(fake.guildId)!.commands.set([reset.toJSON()]);
  return { fake, client };
}

describe('fake Discord: application commands', () => {
  it('stores a bulk overwrite per scope and answers with Discord defaults filled in and empty fields left out', async () => {
    const { fake, client } = await ready();

    const [global] = fake.registeredCommands();
    expect(global).toEqual({
      id: expect.any(String),
      application_id: fake.botUser.id,
      version: expect.any(String),
      default_member_permissions: null,
      type: 1,
      name: 'tool',
      description: 'Run a tool',
      dm_permission: true,
      contexts: null,
      integration_types: [0],
      options: [
        {
          type: 1,
          name: 'run',
          description: 'Run one tool',
          options: [
            { type: 3, name: 'name', description: 'Tool name', required: true },
            { type: 4, name: 'count', description: 'How many', min_value: 1 },
            { type: 5, name: 'verbose', description: 'Say more' },
          ],
        },
        { type: 1, name: 'list', description: 'List the tools' },
      ],
      nsfw: false,
    });
    // What the bot sent differs: `required: false`, `options: []`, no id/version/defaults.
    const put = fake.requests.find(
      (request) => request.method === 'PUT' && request.path.endsWith('/commands') && !request.path.includes('/guilds/'),
    )!;
    expect((put.body as { options: { options: unknown[] }[] }[])[0]!.options[1]!.options).toEqual([]);
    expect(fake.registeredCommands()[1]).toMatchObject({ type: 3, name: 'Show steps', description: '' });
    expect(fake.registeredCommands({ guildId: fake.guildId })).toEqual([
      expect.objectContaining({
        name: 'reset',
        guild_id: fake.guildId,
        default_member_permissions: String(PermissionFlagsBits.ManageMessages),
        nsfw: false,
      }),
    ]);
    // Discord drops the global-only fields from guild commands, even when the bot sent them.
    for (const field of ['dm_permission', 'contexts', 'integration_types'])
      expect(fake.registeredCommands({ guildId: fake.guildId })[0]).not.toHaveProperty(field);

    const fetched = await client.application!.commands.fetch();
    expect([...fetched.values()].map((command) => command.name)).toEqual(['tool', 'Show steps']);
    expect(fetched.first()!.options[0]).toMatchObject({ type: 1, name: 'run' });
    const guildCommands = await client.guilds.cache.get(fake.guildId)!.commands.fetch();
    expect(guildCommands.first()!.defaultMemberPermissions?.has(PermissionFlagsBits.ManageMessages)).toBe(true);

    // The same definitions again: same ids and versions. A changed one: same id, new version.
    const before = fake.registeredCommands();
    await client.application!.commands.set([tool.toJSON(), showSteps.toJSON()]);
    expect(fake.registeredCommands()).toEqual(before);
    await client.application!.commands.set([tool.setDescription('Run a tool now').toJSON(), showSteps.toJSON()]);
    tool.setDescription('Run a tool');
    const [changed, unchanged] = fake.registeredCommands();
    expect(changed).toMatchObject({ id: before[0]!.id, description: 'Run a tool now' });
    expect(changed!.version).not.toBe(before[0]!.version);
    expect(unchanged!.version).toBe(before[1]!.version);
    expect(fake.requests.filter((request) => request.method === 'PUT').length).toBe(4);
  });

  it('refuses what Discord refuses, and records it', async () => {
    const { fake, client } = await ready();
    const bad = [
      { name: 'Tool', description: 'Upper case' },
      {
        name: 'x',
        description: 'ok',
        options: [
          { type: 3, name: 'a', description: 'a' },
          { type: 3, name: 'b', description: 'b', required: true },
        ],
      },
    ];
    await expect(client.application!.commands.set(bad)).rejects.toMatchObject({ status: 400, code: 50035 });
    expect(fake.takeProblems()).toEqual([
      expect.stringContaining('0.name: APPLICATION_COMMAND_INVALID_NAME'),
      expect.stringContaining('1.options.1.required: APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID'),
    ]);
    await expect(
      client.application!.commands.set([{ name: 'long', description: 'd'.repeat(101) }]),
    ).rejects.toBeInstanceOf(DiscordAPIError);
    expect(fake.takeProblems()).toEqual([
      expect.stringMatching(
        /spec BulkOverwriteApplicationCommandsRequest: \/0\/description must NOT have more than 100/,
      ),
    ]);
    expect(fake.registeredCommands().map((command) => command.name)).toEqual(['tool', 'Show steps']);
  });
});

describe('fake Discord: interactions', () => {
  it('runs a slash command with a subcommand and typed options; an ephemeral reply stays out of the channel', async () => {
    const { fake, client } = await ready();
    const handled = onNextInteraction(client, async (interaction) => {
      const command = interaction as ChatInputCommandInteraction;
      await command.reply({ content: `running ${command.options.getString('name')}`, flags: MessageFlags.Ephemeral });
      return {
        chatInput: command.isChatInputCommand(),
        name: command.commandName,
        sub: command.options.getSubcommand(),
        tool: command.options.getString('name'),
        count: command.options.getInteger('count'),
        verbose: command.options.getBoolean('verbose'),
        user: command.user.username,
        channel: command.channelId,
        admin: command.memberPermissions?.has(PermissionFlagsBits.Administrator),
      };
    });
    const interaction = await fake.userRunsCommand({
      name: 'tool',
      subcommand: 'run',
      author: 'ada',
      channelId: fake.channels.general,
      options: { name: 'calculator', count: 3, verbose: true },
    });
    expect(await handled).toEqual({
      chatInput: true,
      name: 'tool',
      sub: 'run',
      tool: 'calculator',
      count: 3,
      verbose: true,
      user: 'ada',
      channel: fake.channels.general,
      admin: true,
    });

    expect(await interaction.waitForReply()).toMatchObject({
      kind: 'callback',
      type: 4,
      content: 'running calculator',
      ephemeral: true,
    });
    expect(interaction.acknowledged).toBe(true);
    expect(fake.botMessages()).toEqual([]);
    const sent = (interaction.payload as { data: { options: unknown } }).data.options;
    expect(sent).toEqual([
      {
        type: 1,
        name: 'run',
        options: [
          { type: 3, name: 'name', value: 'calculator' },
          { type: 4, name: 'count', value: 3 },
          { type: 5, name: 'verbose', value: true },
        ],
      },
    ]);
  });

  it('records an edit of a reply whose words come without allowed_mentions: Discord parses them again', async () => {
    const { fake, client } = await ready();
    const handled = onNextInteraction(client, async (interaction) => {
      const command = interaction as ChatInputCommandInteraction;
      await command.deferReply();
      await command.editReply({ content: 'Working on it', allowedMentions: { parse: [] } });
      // By REST itself: discord.js would add the client's default allowed_mentions.
      await client.rest.patch(Routes.webhookMessage(command.applicationId, command.token, '@original'), {
        body: { content: 'Done, <@200000000000000001>' },
        auth: false,
      });
    });
    await fake.userRunsCommand({ name: 'tool', subcommand: 'list', author: 'bob', channelId: fake.channels.general });
    await handled;
    expect(fake.takeProblems()).toEqual([
      expect.stringMatching(/^REST PATCH .*original: bot message without allowed_mentions/),
    ]);
  });

  it('defers, then edits the loading message in the channel; a follow-up carries a file', async () => {
    const { fake, client } = await ready();
    const handled = onNextInteraction(client, async (interaction) => {
      const command = interaction as ChatInputCommandInteraction;
      await command.deferReply();
      await command.editReply({ content: 'Here are the tools.' });
      const file = new AttachmentBuilder(Buffer.from('calculator\nclock\n'), { name: 'tools.txt' });
      const followUp = await command.followUp({ content: 'The list as a file.', files: [file] });
      return followUp.attachments.first()!.url;
    });
    const interaction = await fake.userRunsCommand({
      name: 'tool',
      subcommand: 'list',
      author: 'bob',
      channelId: fake.channels.general,
    });

    const edit = await interaction.waitForReply();
    expect(interaction.deferred).toBe(true);
    expect(edit).toMatchObject({ kind: 'edit', content: 'Here are the tools.', ephemeral: false });
    const url = await handled;
    const replies = interaction.replies();
    expect(replies.map((reply) => reply.kind)).toEqual(['callback', 'edit', 'followup']);
    expect(replies[0]).toMatchObject({ type: 5, content: '' });
    expect(replies[2]).toMatchObject({
      content: 'The list as a file.',
      files: [{ name: 'tools.txt', content: 'calculator\nclock\n' }],
    });
    expect(await (await fetch(url)).text()).toBe('calculator\nclock\n');

    const inChannel = fake.botMessages(fake.channels.general);
    expect(inChannel.map((message) => [message.type, message.content])).toEqual([
      [20, 'Here are the tools.'],
      [20, 'The list as a file.'],
    ]);
    expect(inChannel[0]!.flags).toBe(0); // the loading flag is gone
    expect(fake.dispatches.map((dispatch) => dispatch.t).filter((t) => t.startsWith('MESSAGE_'))).toEqual([
      'MESSAGE_CREATE',
      'MESSAGE_UPDATE',
      'MESSAGE_CREATE',
    ]);
  });

  it('runs a message context-menu command on its target message', async () => {
    const { fake, client } = await ready();
    const target = await fake.userSays({
      channelId: fake.channels.general,
      author: 'bob',
      content: 'what did the bot do here?',
    });
    const handled = onNextInteraction(client, async (interaction) => {
      const command = interaction as MessageContextMenuCommandInteraction;
      await command.reply({ content: 'Steps: none', flags: MessageFlags.Ephemeral });
      return {
        menu: command.isMessageContextMenuCommand(),
        id: command.targetId,
        content: command.targetMessage.content,
        author: command.targetMessage.author.username,
      };
    });
    const interaction = await fake.userRunsCommand({
      name: 'Show steps',
      type: 'message',
      targetMessageId: target.id,
      author: 'ada',
      channelId: fake.channels.general,
    });
    expect(await handled).toEqual({ menu: true, id: target.id, content: 'what did the bot do here?', author: 'bob' });
    expect(await interaction.waitForReply()).toMatchObject({ content: 'Steps: none', ephemeral: true });
  });

  it('refuses a second callback with 40060 (discord.js itself refuses first)', async () => {
    const { fake, client } = await ready();
    const handled = onNextInteraction(client, async (interaction) => {
      const command = interaction as ChatInputCommandInteraction;
      await command.reply({ content: 'first', flags: MessageFlags.Ephemeral });
      const guarded = await command.reply({ content: 'second' }).catch((error: unknown) => error);
      const raw = await client.rest
        .post(Routes.interactionCallback(command.id, command.token), {
          body: { type: 4, data: { content: 'again', allowed_mentions: { parse: [] } } },
          auth: false,
        })
        .catch((error: unknown) => error);
      return { guarded, raw };
    });
    await fake.userRunsCommand({ name: 'tool', subcommand: 'list', author: 'bob', channelId: fake.channels.general });
    const { guarded, raw } = await handled;
    expect(guarded).toBeInstanceOf(DiscordjsError);
    expect(raw).toBeInstanceOf(DiscordAPIError);
    expect(raw).toMatchObject({ status: 400, code: 40060 });
  });

  it('answers a callback after the deadline with 10062 and records that the bot was too slow', async () => {
    const { fake, client } = await ready({ interactionDeadlineMs: 100 });
    const handled = onNextInteraction(client, async (interaction) => {
      // Answers only once the fake has seen the deadline pass.
      await fake.waitFor(() => fake.problems.some((problem) => problem.includes('did not answer within')), {
        what: 'the deadline missed',
      });
      return (interaction as ChatInputCommandInteraction)
        .reply({ content: 'too late' })
        .catch((error: unknown) => error);
    });
    const interaction = await fake.userRunsCommand({
      name: 'tool',
      subcommand: 'list',
      author: 'bob',
      channelId: fake.channels.general,
    });
    expect(await handled).toMatchObject({ status: 404, code: 10062 });
    expect(interaction.acknowledged).toBe(false);
    expect(fake.takeProblems()).toEqual([expect.stringContaining('the bot did not answer within 0.1 s')]);
  });

  it('shows member permissions and roles; a command needing permissions is hidden from those without them', async () => {
    const { fake, client } = await ready();
    await expect(
      fake.userRunsCommand({ name: 'reset', author: 'bob', channelId: fake.channels.general }),
    ).rejects.toThrow(/lacks default_member_permissions/);
    await expect(
      fake.userRunsCommand({
        name: 'tool',
        subcommand: 'run',
        author: 'bob',
        channelId: fake.channels.general,
        options: { name: 7 },
      }),
    ).rejects.toThrow(/"name": 7 is not a string/);
    await expect(
      fake.userRunsCommand({ name: 'tool', subcommand: 'run', author: 'bob', channelId: fake.channels.general }),
    ).rejects.toThrow(/required option "name" is missing/);

    const helpers = await fake.createRole({ name: 'Helpers', permissions: PermissionFlagsBits.ManageMessages });
    await fake.giveRole(fake.users.bob, helpers);
    const handled = onNextInteraction(client, async (interaction) => {
      await (interaction as ChatInputCommandInteraction).reply({ content: 'forgotten', flags: MessageFlags.Ephemeral });
      const member = interaction.member as GuildMember;
      return {
        manage: interaction.memberPermissions?.has(PermissionFlagsBits.ManageMessages),
        admin: interaction.memberPermissions?.has(PermissionFlagsBits.Administrator),
        roles: member.roles.cache.map((role) => role.name).sort(),
        app: interaction.appPermissions?.has(PermissionFlagsBits.SendMessages),
      };
    });
    await fake.userRunsCommand({ name: 'reset', author: 'bob', channelId: fake.channels.general });
    expect(await handled).toEqual({ manage: true, admin: false, roles: ['@everyone', 'Helpers'], app: true });
  });

  it('applies the bot-message rules to replies: 2,000 characters, and a follow-up right after a deferral is flagged', async () => {
    const { fake, client } = await ready();
    const handled = onNextInteraction(client, async (interaction) => {
      const command = interaction as ChatInputCommandInteraction;
      const tooLong = await command.reply({ content: 'x'.repeat(2001) }).catch((error: unknown) => error);
      await command.deferReply({ flags: MessageFlags.Ephemeral });
      await command.followUp({ content: 'done' });
      return tooLong;
    });
    const interaction = await fake.userRunsCommand({
      name: 'tool',
      subcommand: 'list',
      author: 'bob',
      channelId: fake.channels.general,
    });
    expect(await handled).toMatchObject({ status: 400, code: 50035 });
    expect(await interaction.waitForReply()).toMatchObject({ kind: 'followup', content: 'done', ephemeral: true });
    expect(interaction.replies().map((reply) => reply.messageId)).toEqual([
      interaction.replies()[0]!.messageId,
      interaction.replies()[0]!.messageId,
    ]);
    expect(fake.takeProblems()).toEqual([
      expect.stringMatching(
        /spec CreateMessageInteractionCallbackRequest: \/data\/content must NOT have more than 2000/,
      ),
      expect.stringContaining('a follow-up right after deferReply edits the loading message'),
    ]);
  });
});

describe('fake Discord: forms (modals)', () => {
  it('a command answered with a form (callback 9, checked against the spec), then the submitted form (type 5) with its values', async () => {
    const { fake, client } = await ready();
    const opened = onNextInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('expected a slash command');
      await interaction.showModal({
        custom_id: 'notes:1',
        title: 'Notes',
        components: [
          {
            type: 1,
            components: [{ type: 4, custom_id: 'body', label: 'Body', style: 2, required: false, max_length: 10 }],
          },
        ],
      } as never);
    });
    const command = await fake.userRunsCommand({
      name: 'tool',
      subcommand: 'list',
      author: 'ada',
      channelId: fake.channels.general,
    });
    await opened;
    expect(command.acknowledged).toBe(true);
    expect(await command.waitForModal()).toMatchObject({ custom_id: 'notes:1', title: 'Notes' });
    // The fake refuses what Discord's client would not let through.
    await expect(fake.userSubmitsModal(command, { body: 'far more than ten characters' })).rejects.toThrow(
      'takes at most 10 characters',
    );
    await expect(fake.userSubmitsModal(command, { title: 'x' })).rejects.toThrow('the form has no text input "title"');

    const submitted = onNextInteraction(client, async (interaction) => {
      if (!interaction.isModalSubmit()) throw new Error('expected a submitted form');
      const value = interaction.fields.getTextInputValue('body');
      await interaction.reply({ content: `got ${value}`, flags: MessageFlags.Ephemeral });
      return { customId: interaction.customId, value };
    });
    const submission = await fake.userSubmitsModal(command, { body: 'hello' });
    expect(await submitted).toEqual({ customId: 'notes:1', value: 'hello' });
    expect(await submission.waitForReply()).toMatchObject({ content: 'got hello', ephemeral: true });
    expect(fake.takeProblems()).toEqual([]);
  });
});
