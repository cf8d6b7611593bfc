/**
 * The fake's attachment options, pins and upload limit against the real discord.js client: a file
 * given to a slash command arrives resolved, with a URL the fake serves; a channel's pins come in
 * pages of Discord's 2025 list (newest pin first, `before` a pin's time); an upload past 10 MiB is
 * refused with Discord's 413.
 */
import { describe, expect, it } from 'vitest';
import {
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  type Interaction,
  MessageFlags,
  SlashCommandBuilder,
  type TextChannel,
} from 'discord.js';
import { useDiscordClientWorld } from '../../support/discord-client-world.ts';

const world = useDiscordClientWorld({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages] });

async function ready() {
  const { fake, client } = await world.login();
  const upload = new SlashCommandBuilder()
    .setName('upload')
    .setDescription('Takes a file')
    .addAttachmentOption((option) => option.setName('file').setDescription('A file').setRequired(true));
  await client.application!.commands.set([upload.toJSON()]);
  return { fake, client };
}

describe('the fake: files and pins', () => {
  it('an attachment option arrives resolved, its file served from the fake’s origin', async () => {
    const { fake, client } = await ready();
    const received = new Promise<string>((resolve) =>
      client.once(Events.InteractionCreate, (interaction: Interaction) => {
        if (!interaction.isChatInputCommand()) return;
        const file = interaction.options.getAttachment('file', true);
        void interaction
          .reply({ content: `${file.name} ${file.size}`, flags: MessageFlags.Ephemeral })
          .then(() => fetch(file.url))
          .then((response) => response.text())
          .then(resolve);
      }),
    );
    const run = await fake.userRunsCommand({
      name: 'upload',
      channelId: fake.channels.general,
      author: 'ada',
      options: { file: { filename: 'notes.txt', contentType: 'text/plain', body: 'hello' } },
    });
    expect((await run.waitForReply()).content).toBe('notes.txt 5');
    expect(await received).toBe('hello');
  });

  it('pins come newest first, in pages of `limit` with `before` the last pin’s time; an upload past 10 MiB is refused', async () => {
    const { fake, client } = await ready();
    const ids: string[] = [];
    for (const content of ['one', 'two', 'three']) {
      const message = await fake.userSays({ channelId: fake.channels.general, author: 'ada', content });
      fake.pinMessage(fake.channels.general, message.id);
      ids.push(message.id);
    }
    const channel = (await client.channels.fetch(fake.channels.general)) as TextChannel;
    const first = await channel.messages.fetchPins({ limit: 2 });
    expect(first.items.map((item) => item.message.content)).toEqual(['three', 'two']);
    expect(first.hasMore).toBe(true);
    const rest = await channel.messages.fetchPins({ limit: 2, before: first.items.at(-1)!.pinnedTimestamp });
    expect(rest.items.map((item) => item.message.id)).toEqual([ids[0]]);
    expect(rest.hasMore).toBe(false);

    const big = channel.send({ files: [{ attachment: Buffer.alloc(10 * 1024 * 1024 + 1), name: 'big.bin' }] });
    await expect(big).rejects.toBeInstanceOf(DiscordAPIError);
    await expect(big).rejects.toMatchObject({ status: 413, code: 40005 });
  });
});
