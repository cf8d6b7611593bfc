/**
 * `npm start` killed (SIGKILL) after Discord took a reminder's post but before the bot heard back:
 * the restart posts it again with the same nonce, Discord returns the first message, and the
 * channel shows the reminder once. (A kill before the post reached Discord is in
 * test/tools/remind-me.test.ts, with the claim left in the database as the dead process leaves it.)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openStore } from '../../db/store.ts';
import { nonceFor } from '../../src/discord/send.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../support/fake-discord.ts';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.ts';

let discord: FakeDiscord;
let model: ScriptedModel;
let databasePath: string;
let bot: BotProcess | undefined;
beforeEach(async () => {
  discord = await startFakeDiscord();
  model = await startScriptedModel();
  databasePath = join(mkdtempSync(join(tmpdir(), 'reminder-crash-')), 'bot.sqlite');
});
afterEach(async () => {
  bot?.child.kill('SIGKILL');
  await bot?.exited;
  bot = undefined;
  await discord.close();
  await model.close();
});

async function crash(): Promise<void> {
  bot!.child.kill('SIGKILL');
  await bot!.exited;
}

function reminderRow(id: number) {
  const store = openStore(databasePath);
  try {
    return store.reminders.byId(id);
  } finally {
    store.close();
  }
}

it('SIGKILL between the post and its answer: after the restart the reminder is in the channel once, and marked delivered', async () => {
  const channelId = discord.channels.general;
  const store = openStore(databasePath);
  const id = store.reminders.add({
    guildId: discord.guildId,
    channelId,
    userId: discord.users.bob,
    text: 'water the plants',
    dueAt: Date.now(),
  });
  store.close();
  // The post takes effect at once; its answer would come a minute later.
  discord.holdNext({ method: 'POST', path: new RegExp(`^/channels/${channelId}/messages$`), ms: 60_000 });

  bot = await startBotProcess(discord, model, databasePath);
  const [posted] = await discord.waitFor(
    () => discord.botMessages(channelId).length === 1 && discord.botMessages(channelId),
    { what: 'the post taken by Discord' },
  );
  await crash();
  expect(reminderRow(id)).toMatchObject({ attempts: 1, claimed_by: expect.any(String), delivered_at: null });

  bot = await startBotProcess(discord, model, databasePath);
  await bot.waitForLog('reminder posted');
  await crash();

  expect(discord.botMessages(channelId)).toEqual([posted]);
  const bodies = discord.requests
    .filter((request) => request.method === 'POST' && request.path === `/channels/${channelId}/messages`)
    .map((request) => request.body as { nonce?: string; enforce_nonce?: boolean });
  expect(bodies).toEqual([
    expect.objectContaining({ nonce: nonceFor(`reminder:${id}`, 0), enforce_nonce: true }),
    expect.objectContaining({ nonce: nonceFor(`reminder:${id}`, 0), enforce_nonce: true }),
  ]);
  expect(reminderRow(id)).toMatchObject({
    attempts: 2,
    claimed_by: null,
    delivered_at: expect.any(Number),
    message_id: posted!.id,
  });
});
