/**
 * Messages in the knowledge kept in step with Discord, through the real bot against the fake:
 * "Add to knowledge" on a message with its file, then its edit (the document replaced) and its
 * deletion, alone or in a bulk deletion (the document removed); `/knowledge add-pins` reading every
 * page of a channel's pins (src/discord/knowledge/).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BotWorld } from '../../support/bot-harness.ts';
import { addToKnowledge, knowledge, linkOf } from '../../support/knowledge-commands.ts';
import { start, worldHolder } from '../../support/place-settings-world.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  worldHolder.world = undefined;
});

describe('messages in the knowledge', () => {
  it('"Add to knowledge" adds a message with its file; an edit replaces its words, a deletion removes it', async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const general = discord.channels.general;
    const said = await discord.userSays({
      channelId: general,
      author: 'bob',
      content: 'The library opens at nine.',
      attachments: [{ filename: 'hours.txt', contentType: 'text/plain', body: 'The pool opens at noon.' }],
    });
    expect(await addToKnowledge(said.id)).toBe(
      'Added **Message by Bob in \\#general** in the knowledge of the whole server: 2 passages, searched by words.',
    );
    const found = async (query: string) => (await knowledge('search', { query })).reply.content;
    expect(await found('library')).toContain(`Source: ${linkOf(said.id)}\nThe library opens at nine.`);
    expect(await found('pool')).toContain('The pool opens at noon.');
    const listed = async () => (await knowledge('list')).reply.content;
    expect(await listed()).toMatch(/added by <@\d+> <t:\d+:d>$/);

    await discord.userEdits(general, said.id, 'The library opens at ten.');
    await world.handled('edit', said.id);
    expect(await found('library')).toContain('The library opens at ten.');
    expect(await found('library')).not.toContain('nine');
    // Still the date it was added (retention counts from it), and the date of the edit.
    expect(await listed()).toMatch(/added by <@\d+> <t:\d+:d> · updated <t:\d+:d>$/);

    await discord.userDeletes(general, said.id);
    await world.handled('deletion', said.id);
    expect((await knowledge('list')).reply.content).toContain('I know no documents for the whole server.');
  });

  it('a bulk deletion removes the messages it takes; a message left keeps its document', async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const general = discord.channels.general;
    const first = await discord.userSays({ channelId: general, author: 'ada', content: 'Rule one: be kind.' });
    const second = await discord.userSays({ channelId: general, author: 'ada', content: 'Rule two: no spam.' });
    await addToKnowledge(first.id);
    await addToKnowledge(second.id);
    await discord.bulkDelete(general, [first.id]);
    await world.handled('deletion', first.id);
    const listed = (await knowledge('list')).reply.content;
    expect(listed).toContain(linkOf(second.id));
    expect(listed).not.toContain(linkOf(first.id));
  });

  it("/knowledge add-pins adds each pinned message of a channel, every page of Discord's list", async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const general = discord.channels.general;
    const pinned: string[] = [];
    // More than one page of 50.
    for (let index = 1; index <= 52; index++) {
      const message = await discord.userSays({
        channelId: general,
        author: 'ada',
        content: `FAQ ${index}: answer ${index}.`,
      });
      discord.pinMessage(general, message.id);
      pinned.push(message.id);
    }
    await discord.userSays({ channelId: general, author: 'ada', content: 'Not pinned: chatter.' });
    const { reply } = await knowledge('add-pins', { channel: general });
    expect(reply.content).toBe(`Pins of <#${general}> in the knowledge of the whole server: 52 added.`);
    expect(world.discord.requests.filter((request) => request.path.endsWith('/messages/pins'))).toHaveLength(2);
    expect(world.knowledge.list(discord.guildId).map((document) => document.source.link)).toEqual(
      expect.arrayContaining(pinned.map((id) => linkOf(id))),
    );
    expect((await knowledge('search', { query: 'chatter' })).reply.content).toContain('Nothing in my knowledge');
  });
});

describe('a deleted channel', () => {
  it("takes the documents kept for it and those of its messages; the server's others stay", async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const rules = await discord.createChannel('rules');
    const file = { filename: 'rules.txt', contentType: 'text/plain', body: 'Be kind.' };
    await knowledge('add', { file, channel: rules });
    const said = await discord.userSays({ channelId: rules, author: 'ada', content: 'No spam, please.' });
    await addToKnowledge(said.id, rules);
    await knowledge('add', { file: { ...file, filename: 'server.txt', body: 'Welcome.' } });
    expect(world.knowledge.list(discord.guildId)).toHaveLength(3);

    await discord.deleteChannel(rules);
    await world.handled('channel-deletion', rules);
    expect(world.knowledge.list(discord.guildId).map((document) => document.source.title)).toEqual(['server.txt']);
  });
});

describe('a deleted channel with threads', () => {
  it('takes the documents of its threads’ messages too (Discord sends no THREAD_DELETE for them); another channel’s thread keeps its', async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const rules = await discord.createChannel('rules');
    const addFrom = async (channelId: string, content: string) =>
      addToKnowledge((await discord.userSays({ channelId, author: 'ada', content })).id, channelId);
    const inRules = await discord.createThread(rules, 'questions', discord.users.bob);
    await addFrom(inRules.id, 'Spam gets you muted.');
    const elsewhere = await discord.createThread(discord.channels.random, 'elsewhere', discord.users.bob);
    await addFrom(elsewhere.id, 'Memes go here.');
    expect(world.knowledge.list(discord.guildId)).toHaveLength(2);

    await discord.deleteChannel(rules);
    await world.handled('channel-deletion', rules);
    expect(world.knowledge.list(discord.guildId).map((document) => document.source.key)).toEqual([
      expect.stringMatching(new RegExp(`^message:${elsewhere.id}/`)),
    ]);
    // A thread discord.js held is known gone without asking Discord.
    expect(discord.requests.filter((request) => request.path === `/channels/${inRules.id}`)).toEqual([]);
  });
});

describe('a deleted channel with an archived thread the bot has not seen since it started', () => {
  it('asks Discord for that thread, and takes its messages’ documents when Discord no longer knows it', async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const rules = await discord.createChannel('rules');
    const added = async (channelId: string, content: string) =>
      addToKnowledge((await discord.userSays({ channelId, author: 'ada', content })).id, channelId);
    const inRules = await discord.createThread(rules, 'questions', discord.users.bob);
    await added(inRules.id, 'Spam gets you muted.');
    const elsewhere = await discord.createThread(discord.channels.random, 'elsewhere', discord.users.bob);
    await added(elsewhere.id, 'Memes go here.');
    await discord.updateThread(inRules.id, { archived: true });
    await discord.updateThread(elsewhere.id, { archived: true });
    // After a restart discord.js holds only the active threads (GUILD_CREATE's).
    await world.restart();

    await discord.deleteChannel(rules);
    await world.handled('channel-deletion', rules);
    expect(world.knowledge.list(discord.guildId).map((document) => document.source.key)).toEqual([
      expect.stringMatching(new RegExp(`^message:${elsewhere.id}/`)),
    ]);
  });
});

describe('a forward', () => {
  it('"Add to knowledge" on a forward adds what it forwards, text and file', async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const general = discord.channels.general;
    const original = await discord.userSays({
      channelId: discord.channels.random,
      author: 'bob',
      content: 'The bakery closes at six.',
      attachments: [{ filename: 'prices.csv', contentType: 'text/csv', body: 'bread,2\ncake,5\n' }],
    });
    const forward = await discord.userSays({
      channelId: general,
      author: 'ada',
      content: '',
      forwardOf: { channelId: discord.channels.random, messageId: original.id },
    });
    expect(await addToKnowledge(forward.id)).toMatch(/^Added \*\*Message by Ada in \\#general\*\*/);
    expect((await knowledge('search', { query: 'bakery' })).reply.content).toContain('The bakery closes at six.');
    expect((await knowledge('search', { query: 'cake' })).reply.content).toContain('prices.csv');
  });
});
