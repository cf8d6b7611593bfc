/**
 * Where the knowledge comes from and whose it is, through the real bot: a web page added under
 * fetch_url's rules (a test server's loopback address let through by code alone), embeddings made
 * with progress shown and made again for a new model (the fake embeddings server), no search of
 * one server reaching another's documents, and `/forget-me` taking a member's messages but not
 * the server's files.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BotWorld } from '../support/bot-harness.ts';
import { type FakeEmbeddingsServer, startFakeEmbeddingsServer } from '../support/fake-embeddings-server.ts';
import { toolCalls } from '../support/fake-model.ts';
import { addToKnowledge, knowledge } from '../support/knowledge-commands.ts';
import { ask, start, worldHolder } from '../support/place-settings-world.ts';
import { startWebServer, type WebServer } from '../support/web-server.ts';

let world: BotWorld;
let web: WebServer | undefined;
let embeddings: FakeEmbeddingsServer | undefined;
afterEach(async () => {
  await world?.close();
  worldHolder.world = undefined;
  await web?.close();
  web = undefined;
  await embeddings?.close();
  embeddings = undefined;
});

const rules = {
  filename: 'rules.md',
  contentType: 'text/markdown',
  body: '# Rules\n\n## Quiet hours\n\nThe quiet hours run from 22:00 to 07:00.\n\n## Pets\n\nCats are welcome.\n',
};

/** The model calls search_knowledge for `query`, then answers; resolves with what the tool showed it. */
function searchOnce(query: string) {
  const seen = { observation: '' };
  world.model.enqueue(toolCalls({ name: 'search_knowledge', arguments: { query, limit: null } }), (request) => {
    seen.observation = String(request.messages.at(-1)!.content);
    return toolCalls({ name: 'final_answer', arguments: { answer: 'Done.', tools_used: ['search_knowledge'] } });
  });
  return seen;
}

describe('knowledge from the web, with embeddings, per server, and forgotten', () => {
  it("a URL is fetched under fetch_url's rules: a page added with its link; an address that is not public refused", async () => {
    web = await startWebServer('127.0.0.1');
    web.route('/museum', (_request, response) =>
      response
        .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
        .end(
          '<html><head><title>Opening times</title></head><body><h1>Opening times</h1><p>The museum opens at ten.</p></body></html>',
        ),
    );
    world = await start({ knowledge: { testOnlyAllowAddresses: ['127.0.0.1'] } });
    const url = web.url('/museum');
    const added = await knowledge('add', { url });
    expect(added.reply.content).toMatch(/^Added \*\*Opening times\*\* in the knowledge of the whole server: 1 passage/);
    expect((await knowledge('list')).reply.content).toContain(`[Opening times](<${url}>)`);
    // A page's title cannot close its link in the list, nor open another.
    web.route('/tricky', (_request, response) =>
      response
        .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
        .end('<html><head><title>a](https://evil.example) [b</title></head><body><p>Words.</p></body></html>'),
    );
    await knowledge('add', { url: web.url('/tricky') });
    expect((await knowledge('list')).reply.content).toContain(
      `[a\\]\\(https://evil.example\\) \\[b](<${web.url('/tricky')}>)`,
    );
    expect((await knowledge('search', { query: 'museum' })).reply.content).toContain(
      `Source: ${url}\nThe museum opens at ten.`,
    );

    // 127.0.0.2 is not let through: the public-address rule refuses it before any connection.
    const refused = await knowledge('add', { url: 'http://127.0.0.2:9/private' });
    expect(refused.reply.content).toBe(
      'I did not add http://127.0.0.2:9/private: Refused: 127.0.0.2 is a loopback address; I fetch only from public internet addresses.',
    );
  });

  it('with EMBEDDING_MODEL: the reply shows the embedding progress; a new model embeds again, said in /knowledge list', async () => {
    embeddings = await startFakeEmbeddingsServer();
    const settings = { embeddings: { baseURL: embeddings.baseURL, model: 'fake-embed-1' } };
    world = await start({ knowledge: settings });
    const { interaction, reply } = await knowledge('add', { file: rules });
    expect(reply.content).toMatch(/: \d+ passages?, searched by meaning and by words\.$/);
    expect(interaction.replies().map((answer) => answer.content)).toContainEqual(
      expect.stringMatching(/^Embedding \*\*Rules\*\*: \d+ of \d+ passages…$/),
    );
    expect((await knowledge('list')).reply.content).toContain('by words and meaning (fake-embed-1)');

    // The operator names another model while its server is down: the documents are stale, and said so.
    embeddings.down = true;
    settings.embeddings.model = 'fake-embed-2';
    await world.restart();
    await world.discord.waitFor(() => embeddings!.requests.some((request) => request.model === 'fake-embed-2'));
    // Its old vectors may be gone already or not (the pass failed before or after): stale either way.
    expect((await knowledge('list')).reply.content).toMatch(
      /by words for now: its embeddings( \(fake-embed-1\))? are to be made again with the model now set, at the next start or once the embedding server answers again/,
    );
    // Up again at the next start: embedded again with the new model.
    embeddings.down = false;
    await world.restart();
    await world.discord.waitFor(
      () => world.knowledge.list(world.discord.guildId)[0]?.embeddingModel === 'fake-embed-2',
    );
    expect((await knowledge('list')).reply.content).toContain('by words and meaning (fake-embed-2)');
  });

  it("no search reaches another server's documents: search_knowledge in each of two servers", async () => {
    world = await start({ knowledge: {} });
    const second = world.discord.addGuild('Second Server');
    // The bot learns of a guild when it connects (READY, GUILD_CREATE).
    await world.restart();
    await knowledge('add', {
      file: { filename: 'wifi.txt', contentType: 'text/plain', body: 'The wifi password is alpha.' },
    });
    // The fake's commands run in the seeded server: the second one's document is added as the command would.
    await world.knowledge.add({
      guildId: second.guildId,
      channelId: null,
      source: { kind: 'file', key: 'file:wifi.txt', title: 'wifi.txt', link: null },
      addedBy: world.discord.users.ada,
      authorId: null,
      document: { title: 'wifi.txt', sections: [{ heading: null, text: 'The wifi password is beta.' }] },
    });
    const inSecond = searchOnce('wifi password');
    await ask(second.generalId, 'what is the wifi password?', world.model, null);
    expect(inSecond.observation).toContain('The wifi password is beta.');
    expect(inSecond.observation).not.toContain('alpha');
    const inFirst = searchOnce('wifi password');
    await ask(world.discord.channels.general, 'what is the wifi password?', world.model, null);
    expect(inFirst.observation).toContain('The wifi password is alpha.');
    expect(inFirst.observation).not.toContain('beta');
  });

  it("/forget-me takes a member's messages a moderator added, not the files the server was given", async () => {
    world = await start({ knowledge: {} });
    const { discord } = world;
    await knowledge('add', { file: rules });
    const said = await discord.userSays({
      channelId: discord.channels.general,
      author: 'bob',
      content: 'Bob says: bikes go in the shed.',
    });
    await addToKnowledge(said.id);
    const shown = await discord.userRunsCommand({
      name: 'forget-me',
      channelId: discord.channels.general,
      author: 'bob',
    });
    expect((await shown.waitForReply()).content).toContain(
      "- 1 message of yours a moderator added to the server's knowledge",
    );
    const forgotten = await discord.userRunsCommand({
      name: 'forget-me',
      channelId: discord.channels.general,
      author: 'bob',
      options: { confirm: true },
    });
    expect((await forgotten.waitForReply()).content).toContain(
      "- 1 message of yours a moderator added to the server's knowledge",
    );
    expect(world.knowledge.list(discord.guildId).map((document) => document.source.title)).toEqual(['Rules']);
    expect((await knowledge('search', { query: 'bikes shed' })).reply.content).toContain('Nothing in my knowledge');
  });
});
