/**
 * One post to a log channel: at most 10 cards within 6,000 characters, oldest first; a burst past
 * the backlog has its oldest runs summarised, never a setting change or a report.
 */
import { expect, it } from 'vitest';
import { singleModelCatalog } from '../../../src/model-catalog/model-catalog.ts';
import { nextBatch, postBody } from '../../../src/discord/moderator-log/log-batch.ts';
import { tempStore } from '../../support/temp-store.ts';

it('summarises the oldest runs of a burst past 600 waiting cards, keeps the rest in order, and pings nobody', () => {
  const { store } = tempStore();
  store.instances.register('i', 'bot');
  const conversationId = store.conversations.ensure({
    key: 'discord:1',
    title: 't',
    guildId: 'g',
    channelId: 'c',
    threadId: '1',
    startedById: 'u',
    startedByName: 'Ada',
  }).id;
  const question = store.messages.insert({
    conversationId,
    runId: null,
    role: 'user',
    authorId: 'u',
    authorName: 'Ada',
    content: `${'a long question '.repeat(40)}\nsecond line`,
    toolCalls: null,
    toolCallId: null,
    groupId: null,
    answersId: null,
    discordMessageId: '500',
    tokenCount: 3,
  })!;
  const setting = { kind: 'settings', by: { id: 'u', name: 'Ada' }, changes: [] };
  store.logOutbox.add('g', JSON.stringify(setting));
  for (let index = 0; index < 650; index += 1) {
    const id = `run-${String(index).padStart(4, '0')}`;
    store.runs.start({ id, conversationId, instanceId: 'i', triggerMessageIds: [question], model: 'm' });
    store.logOutbox.add('g', JSON.stringify({ kind: 'run', runId: id }));
  }
  const models = singleModelCatalog({ model: 'm' } as never);

  const batch = nextBatch(store.logOutbox, 'g', { store, models })!;
  // 651 waiting, 600 kept: the 51 oldest are the setting change (kept) and 50 runs (summarised).
  expect(batch.cards[0]!.title).toBe('…and 50 more runs: `/steps`');
  expect(batch.cards[1]!.title).toBe('⚙️ Settings changed');
  expect(batch.cards.slice(2).map((card) => card.footer?.text.slice(-8))).toEqual(
    ['0050', '0051', '0052', '0053', '0054', '0055', '0056', '0057'].map((n) => `run-${n}`),
  );
  const body = postBody(batch, 'nonce');
  expect(body.embeds).toHaveLength(10);
  const characters = body.embeds
    .map((embed) => JSON.stringify([embed.title, embed.description, embed.fields, embed.footer]))
    .join('').length;
  expect(characters).toBeLessThan(6000);
  expect(body.allowed_mentions).toEqual({ parse: [] });
  // Eight runs, eight Steps buttons: five to a row.
  expect(body.components.map((row) => row.components.length)).toEqual([5, 3]);

  store.logOutbox.remove(batch.settles);
  expect(store.logOutbox.count('g')).toBe(651 - 50 - 9);
  expect(nextBatch(store.logOutbox, 'g', { store, models })!.cards[0]!.footer?.text.slice(-8)).toBe('run-0058');
  store.close();
});
