/**
 * The bot (`npm start`'s compiled main, a real process) against a local Discord test server that
 * serves attachments on its own origin, as the fake does: read when DISCORD_CDN_URL names that
 * origin, refused as "not on Discord's CDN" when it does not.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BotProcess, startBotProcess } from '../../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../../support/fake-discord.ts';
import { dataUrlOf, imageUrlsOf, png, textOf } from '../../support/images.ts';
import { type ScriptedModel, finalAnswer, startScriptedModel } from '../../support/fake-model.ts';

let discord: FakeDiscord;
let model: ScriptedModel;
let bot: BotProcess | undefined;
beforeEach(async () => {
  discord = await startFakeDiscord();
  model = await startScriptedModel();
});
afterEach(async () => {
  if (bot && bot.child.exitCode === null) bot.child.kill('SIGTERM');
  await bot?.exited;
  bot = undefined;
  await discord.close();
  await model.close();
});

const photo = png(32, 24);
const notes = 'line one\nline two';

/** Starts the bot with `env`, and Ada asks it about a photo and a text file; resolves with what the model was sent. */
async function askAboutFiles(env: Record<string, string>): Promise<{ text: string; images: string[] }> {
  const databasePath = join(mkdtempSync(join(tmpdir(), 'cdn-')), 'bot.sqlite');
  bot = await startBotProcess(discord, model, databasePath, { MODEL_VISION: 'on', ...env });
  let sent = { text: '', images: [] as string[] };
  model.enqueue((request) => {
    const asked = request.messages.at(-1)!;
    sent = { text: textOf(asked), images: imageUrlsOf(asked) };
    return finalAnswer('Read.');
  });
  const asked = await discord.userSays({
    channelId: discord.channels.general,
    author: 'ada',
    content: `<@${discord.botUser.id}> what are these?`,
    mentions: [discord.botUser.id],
    attachments: [
      { filename: 'photo.png', contentType: 'image/png', body: photo },
      { filename: 'notes.txt', contentType: 'text/plain', body: Buffer.from(notes) },
    ],
  });
  await discord.waitFor(() => discord.botMessages(asked.id).some((post) => post.content === 'Read.'), {
    what: 'the answer in the thread made from the question',
    timeoutMs: 15_000,
  });
  return sent;
}

describe('DISCORD_CDN_URL, against a local Discord server', () => {
  it('reads an image and a text attachment served on the origin it names', { timeout: 60_000 }, async () => {
    const sent = await askAboutFiles({ DISCORD_CDN_URL: discord.cdnUrl });

    expect(sent.images).toEqual([dataUrlOf('image/png', photo)]);
    expect(sent.text).toContain(`[Attachment notes.txt]\n\`\`\`\n${notes}\n\`\`\``);
    expect(discord.filesServed).toHaveLength(2);
  });

  it(
    "refuses them, as not on Discord's CDN, when it is unset or names another origin",
    { timeout: 60_000 },
    async () => {
      // The same host on another port is another origin.
      const otherPort = `http://127.0.0.1:${Number(new URL(discord.cdnUrl).port) === 1 ? 2 : 1}`;
      for (const env of [{}, { DISCORD_CDN_URL: otherPort }] as Record<string, string>[]) {
        const sent = await askAboutFiles(env);

        expect(sent.images).toEqual([]);
        expect(sent.text).toContain("[image photo.png: not shown, not on Discord's CDN]");
        expect(sent.text).toMatch(/\[Attachment notes\.txt \(text\/plain, [^)]+\): not read, not on Discord's CDN\.\]/);
        bot!.child.kill('SIGTERM');
        expect(await bot!.exited).toBe(0);
      }
      expect(discord.filesServed).toEqual([]);
    },
  );
});
