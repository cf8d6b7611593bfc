/**
 * `/knowledge` through the real bot against the fake Discord and the scripted model: a moderator
 * adds a file, lists it, and the agent's search_knowledge finds it and its answer cites it with
 * its link; the tool is offered only where the place has knowledge (the server's, or its
 * channel's); refusals are said plainly; members who do not moderate there are refused.
 */
import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import type { FakeAttachmentInput } from '../support/fake-discord.ts';
import { knowledge } from '../support/knowledge-commands.ts';
import { type PdfOptions, pdfFile } from '../support/pdf-file.ts';
import { type ChatRequest, finalAnswer, toolCalls } from '../support/fake-model.ts';
import { ask, moderatorRole, offered, start, worldHolder } from '../support/place-settings-world.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  worldHolder.world = undefined;
});

const houseRules: FakeAttachmentInput = {
  filename: 'house-rules.md',
  contentType: 'text/markdown',
  body: '# House rules\n\n## Quiet hours\n\nThe quiet hours run from 22:00 to 07:00 every night.\n\n## Pets\n\nCats are welcome; dogs stay on a leash in the garden.\n',
};

/** The model searches the knowledge for `query`, then answers citing `sources`; resolves with what the tool showed it. */
function searchThenAnswer(query: string, sources: (observation: string) => string[]) {
  const seen: { tools: string[]; observation: string } = { tools: [], observation: '' };
  world.model.enqueue(
    (request: ChatRequest) => {
      seen.tools = offered(request);
      return toolCalls({ name: 'search_knowledge', arguments: { query, limit: null } });
    },
    (request: ChatRequest) => {
      seen.observation = String(request.messages.at(-1)!.content);
      return toolCalls({
        name: 'final_answer',
        arguments: {
          answer: 'From the house rules.',
          tools_used: ['search_knowledge'],
          sources: sources(seen.observation),
        },
      });
    },
  );
  return seen;
}

describe('/knowledge through the bot', () => {
  it('a moderator adds a Markdown file, posted nowhere; it is listed; the agent finds it and the answer cites it by its title', async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const posts = discord.botMessages(discord.channels.general).length;
    const { reply } = await knowledge('add', { file: houseRules });
    expect(reply.ephemeral).toBe(true);
    expect(reply.content).toMatch(
      /^Added \*\*House rules\*\* in the knowledge of the whole server: \d+ passages?, searched by words\.$/,
    );
    // The file may be a server's internal document: never posted where the command was used.
    expect(discord.botMessages(discord.channels.general)).toHaveLength(posts);
    const [document] = world.knowledge.list(discord.guildId);
    expect(document!.source.link).toBeNull();

    const listed = await knowledge('list');
    expect(listed.reply.content).toContain(`**${document!.id}** · House rules · the whole server ·`);

    const seen = searchThenAnswer('quiet hours', () => [
      `knowledge:${document!.id}`,
      'knowledge:999',
      'https://made-up.example/rules',
    ]);
    const thread = await ask(discord.channels.general, 'when are the quiet hours?', world.model, null);
    expect(seen.tools).toContain('search_knowledge');
    expect(seen.observation).toContain('[1] House rules › Quiet hours');
    expect(seen.observation).toContain(`Source: knowledge:${document!.id}`);
    expect(seen.observation).toContain('The quiet hours run from 22:00 to 07:00 every night.');
    const answer = discord.botMessages(thread.id).at(-1)!.content;
    expect(answer).toContain("Sources:\n1. 📄 House rules (in this server's knowledge)");
    expect(answer).not.toContain('made-up.example');
    expect(answer).not.toContain('knowledge:');
  });

  it("a file's title is its words: shown under an answer escaped, never a link or a mention", async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const body = '# @everyone [click](https://evil.example) **now**\n\nThe bins go out on Tuesday.\n';
    await knowledge('add', { file: { filename: 'bins.md', contentType: 'text/markdown', body } });
    const [document] = world.knowledge.list(discord.guildId);
    searchThenAnswer('bins', () => [`knowledge:${document!.id}`]);
    const thread = await ask(discord.channels.general, 'when do the bins go out?', world.model, null);
    const answer = discord.botMessages(thread.id).at(-1)!;
    expect(answer.content).toContain(
      "1. 📄 \\@everyone \\[click\\]\\(https://evil.example\\) \\*\\*now\\*\\* (in this server's knowledge)",
    );
  });

  it('search_knowledge is offered only where the place has knowledge: none, then a channel’s, seen from that channel alone', async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    await ask(discord.channels.general, 'anything known?');
    expect(offered(world.model.requests.at(-1))).not.toContain('search_knowledge');

    const { reply } = await knowledge('add', { file: houseRules, channel: discord.channels.random });
    expect(reply.content).toContain(`in the knowledge of <#${discord.channels.random}>`);
    await ask(discord.channels.general, 'and now?');
    expect(offered(world.model.requests.at(-1))).not.toContain('search_knowledge');
    await ask(discord.channels.random, 'and here?');
    expect(offered(world.model.requests.at(-1))).toContain('search_knowledge');
    // /help says where it is not offered.
    const help = async (channelId: string) =>
      (await (await discord.userRunsCommand({ name: 'help', channelId, author: 'bob' })).waitForReply()).content;
    expect(await help(discord.channels.general)).toContain('- **search_knowledge** (no knowledge here yet): ');
    expect(await help(discord.channels.random)).toContain('- **search_knowledge**: ');

    // /knowledge search shows what the agent would find, as in the channel named.
    const inGeneral = await knowledge('search', { query: 'quiet hours' });
    expect(inGeneral.reply.content).toBe(`Nothing in my knowledge for <#${discord.channels.general}> matches that.`);
    const inRandom = await knowledge('search', { query: 'quiet hours', channel: discord.channels.random });
    expect(inRandom.reply.content).toContain('[1] House rules › Quiet hours');
  });

  it('refusals are said plainly: a format it does not read, a file past the size cap, a document past the text cap, a scanned or locked PDF', async () => {
    world = await start({ knowledge: { maxDocumentCharacters: 1_000 } });
    const format = await knowledge('add', {
      file: { filename: 'tool.exe', contentType: 'application/octet-stream', body: 'MZ' },
    });
    expect(format.reply.content).toBe(
      'I did not add tool.exe: tool.exe is not a format the knowledge reads: text (.txt), Markdown (.md), HTML, JSON, CSV, PDF and Word (.docx).',
    );
    // 8 bytes a character of the cap (8,000): a 9,000-byte file is refused before it is read.
    const big = await knowledge('add', {
      file: { filename: 'big.txt', contentType: 'text/plain', body: 'a '.repeat(4_500) },
    });
    expect(big.reply.content).toBe(
      'I did not add big.txt: big.txt is larger than 8 KB, the most I take of one document.',
    );
    const long = await knowledge('add', {
      file: { filename: 'long.txt', contentType: 'text/plain', body: 'word '.repeat(400) },
    });
    expect(long.reply.content).toBe(
      'I did not add **long.txt**: it holds 1,998 characters of text: the most one document may hold is 1,000.',
    );
    const pdf = (filename: string, options: PdfOptions) => ({
      filename,
      contentType: 'application/pdf',
      body: pdfFile([['Page one.']], options),
    });
    const scanned = await knowledge('add', { file: pdf('scan.pdf', { scanned: true }) });
    expect(scanned.reply.content).toBe(
      'I did not add scan.pdf: scan.pdf has no text in it: it looks scanned (pictures of pages). Add a PDF with its text, or the text itself.',
    );
    const locked = await knowledge('add', { file: pdf('locked.pdf', { encrypted: true }) });
    expect(locked.reply.content).toBe(
      'I did not add locked.pdf: locked.pdf is protected by a password: add a copy without one.',
    );
    // Nothing was added.
    expect((await knowledge('list')).reply.content).toContain('I know no documents for the whole server.');
  });

  it('a server whose knowledge is full refuses a document, saying so; one file or one URL, never both', async () => {
    world = await start({ knowledge: { maxDocumentCharacters: 1_000, maxServerCharacters: 1_500 } });
    const text = (filename: string) => ({ filename, contentType: 'text/plain', body: 'word '.repeat(160) });
    expect((await knowledge('add', { file: text('a.txt') })).reply.content).toMatch(/^Added \*\*a\.txt\*\*/);
    expect((await knowledge('add', { file: text('b.txt') })).reply.content).toBe(
      "I did not add **b.txt**: the server's knowledge holds 799 characters; with this document's 799 it would pass its limit of 1,500. Remove documents first.",
    );
    expect((await knowledge('add', { file: text('c.txt'), url: 'https://example.org/' })).reply.content).toBe(
      'Give one `file:` or one `url:`.',
    );
    expect(world.knowledge.list(world.discord.guildId).map((document) => document.source.title)).toEqual(['a.txt']);
  });

  it('a member who does not moderate there is refused, for the server and for a channel, and nothing is added', async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const server = await knowledge('add', { file: houseRules }, 'bob');
    expect(server.reply.content).toBe(
      "The whole server's knowledge is kept by moderators of the whole server: name a channel you moderate (`channel:`).",
    );
    const channel = await knowledge('add', { file: houseRules, channel: discord.channels.general }, 'bob');
    expect(channel.reply.content).toBe(
      `The knowledge of <#${discord.channels.general}> is kept by moderators of that channel.`,
    );
    const asked = await discord.userSays({
      channelId: discord.channels.general,
      author: 'bob',
      content: 'My own rules.',
    });
    const menu = await discord.userRunsCommand({
      name: 'Add to knowledge',
      type: 'message',
      channelId: discord.channels.general,
      targetMessageId: asked.id,
      author: 'bob',
    });
    expect((await menu.waitForReply()).content).toBe('Messages are added to my knowledge by moderators.');
    expect((await knowledge('list')).reply.content).toContain('I know no documents for the whole server.');
  });
  it("a member who manages messages in one channel keeps that channel's knowledge, and neither the server's nor another's", async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const news = await discord.createChannel('news');
    await discord.setChannelOverwrites(news, [
      { id: discord.users.bob, type: 1, allow: PermissionFlagsBits.ManageMessages, deny: 0n },
    ]);
    const added = await knowledge('add', { file: houseRules, channel: news }, 'bob');
    expect(added.reply.content).toMatch(new RegExp(`^Added \\*\\*House rules\\*\\* in the knowledge of <#${news}>`));
    expect((await knowledge('list', { channel: news }, 'bob')).reply.content).toContain(`· <#${news}> ·`);
    expect((await knowledge('list', {}, 'bob')).reply.content).toMatch(/^The whole server's knowledge is kept by/);
    const id = world.knowledge.list(discord.guildId)[0]!.id;
    // Not #random's; but the document he added for #news, he may remove.
    expect((await knowledge('add', { file: houseRules, channel: discord.channels.random }, 'bob')).reply.content).toBe(
      `The knowledge of <#${discord.channels.random}> is kept by moderators of that channel.`,
    );
    expect((await knowledge('remove', { id }, 'bob')).reply.content).toBe(
      `Removed **House rules** (${id}) from my knowledge.`,
    );
  });

  it('puts a title in its replies escaped, so that its marks are shown as typed and cannot restyle the reply', async () => {
    world = await start({ knowledge: {} });
    const file: FakeAttachmentInput = { filename: 'a_b*c*[x](y).txt', contentType: 'text/plain', body: 'Words.' };
    const added = await knowledge('add', { file });
    expect(added.reply.content).toMatch(/^Added \*\*a\\_b\\\*c\\\*\\\[x\\\]\\\(y\\\)\.txt\*\* in the knowledge/);
    const id = world.knowledge.list(world.discord.guildId)[0]!.id;
    expect((await knowledge('remove', { id })).reply.content).toBe(
      `Removed **a\\_b\\*c\\*\\[x\\]\\(y\\).txt** (${id}) from my knowledge.`,
    );
  });

  it("remove id: suggests only the documents the member may remove, never another server's; nor removes another's", async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const news = await discord.createChannel('news');
    await discord.setChannelOverwrites(news, [
      { id: discord.users.bob, type: 1, allow: PermissionFlagsBits.ManageMessages, deny: 0n },
    ]);
    const file = (filename: string) => ({ filename, contentType: 'text/plain', body: `The ${filename} words.` });
    await knowledge('add', { file: file('staff-handbook.txt') });
    await knowledge('add', { file: file('news-guide.txt'), channel: news }, 'bob');
    const second = discord.addGuild('Second Server');
    const elsewhere = await world.knowledge.add({
      guildId: second.guildId,
      channelId: null,
      source: { kind: 'file', key: 'file:secret.txt', title: 'secret.txt', link: null },
      addedBy: discord.users.ada,
      authorId: null,
      document: { title: 'secret.txt', sections: [{ heading: null, text: 'Another server.' }] },
    });
    const [handbook, guide] = world.knowledge.list(discord.guildId);
    const suggested = async (author: 'ada' | 'bob') => {
      const interaction = await discord.userRunsCommand({
        name: 'knowledge',
        subcommand: 'remove',
        author,
        channelId: discord.channels.general,
        options: { id: '' },
        focused: 'id',
      });
      return (await interaction.waitForChoices()).map((choice) => choice.name);
    };
    expect(await suggested('ada')).toEqual([`${handbook!.id} · staff-handbook.txt`, `${guide!.id} · news-guide.txt`]);
    expect(await suggested('bob')).toEqual([`${guide!.id} · news-guide.txt`]);
    expect(elsewhere.ok && (await knowledge('remove', { id: elsewhere.documentId })).reply.content).toBe(
      `There is no document ${elsewhere.ok ? elsewhere.documentId : 0} in this server's knowledge.`,
    );
    expect(world.knowledge.list(second.guildId)).toHaveLength(1);
  });

  it('/tool search_knowledge where there is no knowledge says so plainly; where there is, it finds it', async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const news = await discord.createChannel('news');
    await knowledge('add', { file: houseRules, channel: news });
    const run = async (channelId: string) => {
      const interaction = await discord.userRunsCommand({
        name: 'tool',
        subcommand: 'search_knowledge',
        options: { query: 'quiet hours' },
        author: 'bob',
        channelId,
      });
      return (await interaction.waitForReply((reply) => reply.content !== '')).content;
    };
    expect(await run(discord.channels.general)).toContain(
      'There is no knowledge here: no document of this server or channel. Moderators add them with /knowledge add.',
    );
    expect(await run(news)).toContain('The quiet hours run from 22:00 to 07:00 every night.');
  });

  it("a channel's moderator cannot replace what is kept for the whole server by adding the same file or message again", async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    const news = await discord.createChannel('news');
    await discord.setChannelOverwrites(news, [
      { id: discord.users.bob, type: 1, allow: PermissionFlagsBits.ManageMessages, deny: 0n },
    ]);
    await knowledge('add', { file: houseRules });
    const again = await knowledge('add', { file: houseRules, channel: news }, 'bob');
    expect(again.reply.content).toBe(
      'I did not add **house-rules.md**: it is in the knowledge of the whole server already, which only its moderators may change (a file of another name would not replace it).',
    );
    const said = await discord.userSays({ channelId: news, author: 'ada', content: 'Deadlines are on Fridays.' });
    const addAs = async (author: 'ada' | 'bob') => {
      const menu = await discord.userRunsCommand({
        name: 'Add to knowledge',
        type: 'message',
        channelId: news,
        targetMessageId: said.id,
        author,
      });
      return (await menu.waitForReply((answer) => !answer.content.endsWith('…'))).content;
    };
    expect(await addAs('ada')).toMatch(/^Added .* in the knowledge of the whole server/);
    expect(await addAs('bob')).toMatch(
      /^I did not add \*\*Message by .*\*\*: it is in the knowledge of the whole server already/,
    );
    // Both still the whole server's.
    expect(world.knowledge.list(discord.guildId).map((document) => document.channelId)).toEqual([null, null]);
  });

  it('in a direct message there is no knowledge: search_knowledge is not offered, though the server has some', async () => {
    world = await startBotWorld({ moderatorRoleIds: [moderatorRole], allowDms: true }, {}, {}, { knowledge: {} });
    worldHolder.world = world;
    const { discord, model } = world;
    await knowledge('add', { file: houseRules });
    model.enqueue(finalAnswer('Hi.'));
    await discord.userSaysInDm({ author: 'bob', content: 'when are the quiet hours?' });
    await waitForBotPosts(world, discord.dmChannelOf('bob'), 1);
    expect(offered(model.requests.at(-1))).not.toContain('search_knowledge');
    expect(offered(model.requests.at(-1)).length).toBeGreaterThan(0);
  });

  it("a channel's moderator refused the server's knowledge is told what the command offers instead, or nothing", async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    await discord.setChannelOverwrites(discord.channels.general, [
      { id: discord.users.bob, type: 1, allow: PermissionFlagsBits.ManageMessages, deny: 0n },
    ]);
    await knowledge('add', { file: houseRules });
    const id = world.knowledge.list(discord.guildId)[0]!.id;
    expect((await knowledge('add-pins', { channel: discord.channels.general }, 'bob')).reply.content).toBe(
      "The whole server's knowledge is kept by moderators of the whole server: `only_there: True` keeps the pins for that channel alone, if you moderate it.",
    );
    expect((await knowledge('remove', { id }, 'bob')).reply.content).toBe(
      "The whole server's knowledge is kept by moderators of the whole server.",
    );
  });
});
