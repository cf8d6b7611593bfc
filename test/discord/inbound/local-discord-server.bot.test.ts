/**
 * The bot (`npm start`'s compiled main, a real process) against a local Discord test server that
 * serves attachments on its own origin, as the fake does: read when DISCORD_CDN_URL names that
 * origin, refused as "not on Discord's CDN" when it does not.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BotProcess } from '../../support/bot-process.ts';
import { useBotProcessWorld } from '../../support/bot-process-world.ts';
import { dataUrlOf, imageUrlsOf, png, textOf } from '../../support/images.ts';
import { finalAnswer } from '../../support/fake-model.ts';

const world = useBotProcessWorld('cdn-');
let bot: BotProcess | undefined;

const photo = png(32, 24);
const notes = 'line one\nline two';

/** Starts the bot with `env`, and Ada asks it about a photo and a text file; resolves with what the model was sent. */
async function askAboutFiles(env: Record<string, string>): Promise<{ text: string; images: string[] }> {
  const databasePath = join(mkdtempSync(join(tmpdir(), 'cdn-')), 'bot.sqlite');
  bot = await world.start({ MODEL_VISION: 'on', ...env }, { databasePath });
  let sent = { text: '', images: [] as string[] };
  world.model.enqueue((request) => {
    const asked = request.messages.at(-1)!;
    sent = { text: textOf(asked), images: imageUrlsOf(asked) };
    return finalAnswer('Read.');
  });
  const asked = await world.discord.userSays({
    channelId: world.discord.channels.general,
    author: 'ada',
    content: `<@${world.discord.botUser.id}> what are these?`,
    mentions: [world.discord.botUser.id],
    attachments: [
      { filename: 'photo.png', contentType: 'image/png', body: photo },
      { filename: 'notes.txt', contentType: 'text/plain', body: Buffer.from(notes) },
    ],
  });
  await world.discord.waitFor(() => world.discord.botMessages(asked.id).some((post) => post.content === 'Read.'), {
    what: 'the answer in the thread made from the question',
    timeoutMs: 15_000,
  });
  return sent;
}

describe('DISCORD_CDN_URL, against a local Discord server', () => {
  it('reads an image and a text attachment served on the origin it names', { timeout: 60_000 }, async () => {
    const sent = await askAboutFiles({ DISCORD_CDN_URL: world.discord.cdnUrl });

    expect(sent.images).toEqual([dataUrlOf('image/png', photo)]);
    expect(sent.text).toContain(`[Attachment notes.txt]\n\`\`\`\n${notes}\n\`\`\``);
    expect(world.discord.filesServed).toHaveLength(2);
  });

  it(
    "refuses them, as not on Discord's CDN, when it is unset or names another origin",
    { timeout: 60_000 },
    async () => {
      // The same host on another port is another origin.
      const otherPort = `http://127.0.0.1:${Number(new URL(world.discord.cdnUrl).port) === 1 ? 2 : 1}`;
      for (const env of [{}, { DISCORD_CDN_URL: otherPort }] as Record<string, string>[]) {
        const sent = await askAboutFiles(env);

        expect(sent.images).toEqual([]);
        expect(sent.text).toContain("[image photo.png: not shown, not on Discord's CDN]");
        expect(sent.text).toMatch(/\[Attachment notes\.txt \(text\/plain, [^)]+\): not read, not on Discord's CDN\.\]/);
        bot!.child.kill('SIGTERM');
        expect(await bot!.exited).toBe(0);
      }
      expect(world.discord.filesServed).toEqual([]);
    },
  );
});
