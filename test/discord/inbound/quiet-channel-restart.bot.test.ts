/**
 * A mention in a channel where nothing was ever said, posted while the bot (a real process, on a
 * fresh database) was stopped: answered at the next start, because the bot noted where it started
 * watching each channel when it first connected. What was said before that is not read back.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { type BotProcess, startBotProcess } from '../../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../../support/fake-discord.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel } from '../../support/fake-model.ts';

let discord: FakeDiscord;
let model: ScriptedModel;
const bots: BotProcess[] = [];
afterEach(async () => {
  for (const bot of bots.splice(0)) {
    if (bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill('SIGKILL');
    await bot.exited;
  }
  await discord.close();
  await model.close();
});

it(
  'answers a mention posted while it was stopped in a channel never spoken in, once, in a thread made from it',
  { timeout: 60_000 },
  async () => {
    discord = await startFakeDiscord();
    model = await startScriptedModel();
    const databasePath = join(mkdtempSync(join(tmpdir(), 'quiet-')), 'bot.sqlite');
    const start = async () => {
      const bot = await startBotProcess(discord, model, databasePath);
      bots.push(bot);
      return bot;
    };
    const stop = async (bot: BotProcess) => {
      bot.child.kill('SIGTERM');
      expect(await bot.exited).toBe(0);
    };
    const mention = (channelId: string, text: string) =>
      discord.userSays({
        channelId,
        author: 'ada',
        content: `<@${discord.botUser.id}> ${text}`,
        mentions: [discord.botUser.id],
      });
    const { general, random } = discord.channels;
    // Before the bot ever connected: history, not read back.
    await mention(general, 'are you there yet?');
    expect(discord.messages(random)).toEqual([]);

    await stop(await start());
    const missed = await mention(random, 'what is 2+2?');
    model.enqueue(finalAnswer('4, sorry for the wait.'));
    const second = await start();

    expect((await second.waitForLog('caught up after downtime')).missed).toBe(1);
    const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.id === missed.id), {
      what: 'a thread made from the missed mention',
    });
    await discord.waitFor(() => discord.botMessages(thread.id).length > 0, { what: 'the answer', timeoutMs: 15_000 });
    // SIGTERM lets runs finish: anything else it queued would be answered before it exits.
    await stop(second);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'Ada: what is 2+2?' });
    expect(discord.threads().map((candidate) => candidate.id)).toEqual([missed.id]);
    expect(discord.botMessages().map((post) => post.content)).toEqual(['4, sorry for the wait.']);
  },
);
