import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../../db/migrations.ts';
import { openDatabase } from '../../db/open-database.ts';
import { openStore, type Store } from '../../db/store.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import { fromZodTool } from '../../src/agent/runtime-tool.ts';
import { searchConversation } from '../../tools/search-conversation.ts';
import { searchServer } from '../../tools/search-server.ts';
import { tempStore } from '../support/temp-store.ts';

let store: Store;
beforeEach(() => {
  ({ store } = tempStore());
});
afterEach(() => store.close());

function conversationIn(guildId: string, key: string) {
  return store.conversations.ensure({
    key,
    title: key.replace('discord:', 'thread '),
    guildId,
    channelId: 'c',
    startedById: 'u',
    startedByName: 'Ada',
  });
}
function say(conversationId: number, author: string, content: string, discordMessageId: string) {
  return store.messages.insert({
    conversationId,
    runId: null,
    role: 'user',
    authorId: author,
    authorName: author,
    content,
    toolCalls: null,
    toolCallId: null,
    groupId: null,
    answersId: null,
    discordMessageId,
    tokenCount: 5,
  })!;
}
const context = (conversationId: string, guildId: string | null) => ({
  conversationId,
  guildId,
  channelId: 'c',
  requester: { id: 'u', displayName: 'Ada', isModerator: true },
  logger: silentLogger,
  signal: new AbortController().signal,
});

describe('search_conversation and search_server', () => {
  it('find the matching lines and who said them, in this conversation only, kept in step with edits, deletions and resets', async () => {
    const here = conversationIn('g1', 'discord:1');
    const there = conversationIn('g1', 'discord:2');
    say(here.id, 'Ada', 'The deploy is on Friday after lunch', 'm1');
    say(here.id, 'Bob', 'Lunch is at noon', 'm2');
    say(there.id, 'Cy', 'Friday deploy in the other thread', 'm3');
    const tool = fromZodTool(searchConversation(store.search));
    const run = (query: string) => tool.execute({ query, limit: null }, context('discord:1', 'g1')) as Promise<string>;

    expect(await run('friday deploy')).toMatch(
      /^- Ada, \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: The \*\*deploy\*\* is on \*\*Friday\*\* after lunch$/,
    );
    expect(await run('lunch')).toContain('Bob');
    store.messages.editByDiscordId('m2', 'Dinner is at eight', 5);
    expect(await run('lunch')).not.toContain('Bob');
    expect(await run('dinner')).toContain('Bob');
    store.messages.deleteByDiscordId('m1');
    expect(await run('friday')).toBe('No message matches.');
    store.conversations.resetMemory(here.id, store.messages.newestId(here.id));
    expect(await run('dinner')).toBe('No message matches.');
  });

  it('search_server searches every conversation of this server only, and is for moderators', async () => {
    say(conversationIn('g1', 'discord:1').id, 'Ada', 'budget meeting notes', 'm1');
    say(conversationIn('g1', 'discord:2').id, 'Bob', 'the budget is fine', 'm2');
    say(conversationIn('g2', 'discord:3').id, 'Eve', 'budget of another server', 'm3');
    const tool = fromZodTool(searchServer(store.search));
    expect(tool.moderatorOnly).toBe(true);

    const found = (await tool.execute({ query: 'budget', limit: 10 }, context('discord:1', 'g1'))) as string;

    expect(found.split('\n')).toHaveLength(2);
    expect(found).toContain('in "thread 2"');
    expect(found).not.toContain('Eve');
  });

  it('treats FTS syntax in a query as plain words', async () => {
    const here = conversationIn('g1', 'discord:1');
    say(here.id, 'Ada', 'alpha beta gamma', 'm1');
    const tool = fromZodTool(searchConversation(store.search));
    for (const query of [
      'alpha OR "',
      'NEAR(alpha beta)',
      'alph*',
      '"; DROP TABLE messages; --',
      '-alpha',
      'content:alpha',
    ]) {
      await expect(tool.execute({ query, limit: null }, context('discord:1', 'g1'))).resolves.toEqual(
        expect.any(String),
      );
    }
    expect(store.messages.count(here.id)).toBe(1);
    expect(await tool.execute({ query: '!!!', limit: null }, context('discord:1', 'g1'))).toBe('No message matches.');
  });
});

describe('upgrading a database to full-text search', () => {
  it('indexes the messages a version-1 database already holds', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'upgrade-')), 'bot.sqlite');
    const old = openDatabase(path, { migrations: migrations.filter((migration) => migration.version === 1) });
    old
      .prepare(
        "INSERT INTO conversations (key, title, guild_id, created_at) VALUES ('discord:9', 'old thread', 'g', 1)",
      )
      .run();
    old
      .prepare(
        "INSERT INTO messages (conversation_id, role, author_name, content, created_at, token_count) VALUES (1, 'user', 'Ada', 'an old note about zebras', 1, 5)",
      )
      .run();
    old.close();

    const upgraded = openStore(path);
    expect(upgraded.search.inConversation('discord:9', 'zebras', 5).map((hit) => hit.author_name)).toEqual(['Ada']);
    upgraded.close();
  });
});
