/**
 * Images over the limits people can reach from Discord, end to end (issue 27): a header claiming
 * more pixels than the budget, more refused images than a notice can name, and files the CDN cuts
 * short. The fake Discord serves the files from 127.0.0.1 and refuses a bot message over 2,000
 * characters, as Discord does.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../../support/bot-harness.ts';
import { maxContentLength } from '../../support/discord-conformance.ts';
import { dataUrlOf, imageUrlsOf, jpeg, png, pngClaiming, textOf, webp } from '../../support/images.ts';
import { finalAnswer } from '../../support/fake-model.ts';

let world: BotWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('the pixel budget, through the bot', () => {
  it('refuses headers claiming 2³¹ × 2³¹ and 16M × 16M, telling the model and the person, and never sends them again', async () => {
    world = await startBotWorld({}, {}, {}, { images: { vision: true } });
    const { discord, model, store } = world;
    const photo = jpeg(8000, 5000); // At the budget's edge: taken.
    model.enqueue((request) => {
      const asked = request.messages.at(-1)!;
      expect(imageUrlsOf(asked)).toEqual([dataUrlOf('image/jpeg', photo)]);
      const text = textOf(asked);
      expect(text).toContain(
        '[image claim.png: not shown, 2,147,483,648 × 2,147,483,648 pixels, larger than 8,000 pixels a side or 40 megapixels in all (scale it down and post it again)]',
      );
      expect(text).toContain('[image claim.webp: not shown, 16,777,216 × 16,777,216 pixels, larger than');
      return finalAnswer('One photo.');
    });
    const asked = await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} look`,
      mentions: [discord.botUser.id],
      attachments: [
        { filename: 'claim.png', contentType: 'image/png', body: pngClaiming(2 ** 31, 2 ** 31) },
        { filename: 'claim.webp', contentType: 'image/webp', body: webp(2 ** 24, 2 ** 24) },
        { filename: 'photo.jpg', contentType: 'image/jpeg', body: photo },
      ],
    });
    await world.handled('message', asked.id);
    const notice = discord.botMessages(discord.channels.general)[0]!;
    expect(notice.message_reference?.message_id).toBe(asked.id);
    expect(notice.content).toBe(
      [
        'I could not look at:',
        '- claim.png: 2,147,483,648 × 2,147,483,648 pixels, larger than 8,000 pixels a side or 40 megapixels in all (scale it down and post it again)',
        '- claim.webp: 16,777,216 × 16,777,216 pixels, larger than 8,000 pixels a side or 40 megapixels in all (scale it down and post it again)',
      ].join('\n'),
    );
    expect(store.images.count()).toBe(1);

    // The next call in the thread carries the photo only.
    model.enqueue((request) => {
      expect(request.messages.flatMap(imageUrlsOf)).toEqual([dataUrlOf('image/jpeg', photo)]);
      return finalAnswer('Still one.');
    });
    const again = await discord.userSays({ channelId: asked.id, author: 'ada', content: 'and now?' });
    await world.handled('message', again.id);
    expect((await waitForBotPosts(world, asked.id, 2)).map((post) => post.content)).toEqual([
      'One photo.',
      'Still one.',
    ]);
  });
});

describe('the refusal notice', () => {
  it('names a few of many refused images, each name cut, and counts the rest: it fits in a message', async () => {
    world = await startBotWorld({}, {}, {}, { images: { vision: true } });
    const { discord, model } = world;
    // 10 attachments with 200-character names (text, not images), and 40 links to Discord's CDN.
    const attachments = Array.from({ length: 10 }, (_, index) => ({
      filename: `${String(index).padStart(2, '0')}${'n'.repeat(194)}.png`,
      contentType: 'image/png',
      body: 'not a picture',
    }));
    const cdn = `http://127.0.0.1:${new URL(discord.apiUrl).port}/attachments`;
    const links = Array.from({ length: 40 }, (_, index) => `${cdn}/1/${index}/${'l'.repeat(150)}-${index}.png`);
    model.enqueue(finalAnswer('None of them.'));
    const asked = await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} look at all these ${links.join(' ')}`,
      mentions: [discord.botUser.id],
      attachments,
    });
    await world.handled('message', asked.id);
    const notice = discord.botMessages(discord.channels.general)[0]?.content;
    expect(notice?.length).toBeLessThanOrEqual(maxContentLength);
    const lines = notice!.split('\n');
    expect(lines[0]).toBe('I could not look at:');
    expect(lines.slice(1, -1)).toHaveLength(5);
    for (const [index, line] of lines.slice(1, -1).entries())
      expect(line).toBe(
        `- ${String(index).padStart(2, '0')}${'n'.repeat(77)}…: ${
          index < 4
            ? 'not a PNG, JPEG, WebP or GIF image (whatever its name or type says)'
            : 'at most 4 images are taken from one message'
        }`,
      );
    expect(lines.at(-1)).toBe('…and 45 more');
  });
});

describe('a CDN body cut short', () => {
  it('refuses an image or a text file served compressed and cut, rather than taking what arrived as whole', async () => {
    world = await startBotWorld({}, {}, {}, { images: { vision: true } });
    const { discord, model, store } = world;
    const photo = png(64, 48, { padTo: 4000 });
    const notes = Array.from({ length: 300 }, (_, index) => `line ${index}: ${'x'.repeat(index % 50)}`).join('\n');
    const cutTo = (body: string | Buffer) => Math.floor(gzipSync(body).length / 2);
    model.enqueue((request) => {
      const asked = request.messages.at(-1)!;
      expect(imageUrlsOf(asked)).toEqual([]);
      const text = textOf(asked);
      expect(text).toContain(
        '[image photo.png: not shown, could not be fetched (sent compressed (gzip) though asked for as stored)]',
      );
      expect(text).toMatch(
        /\[Attachment notes\.txt \(text\/plain, [^)]+\): could not be read \(sent compressed \(gzip\) though asked for as stored\)\.\]/,
      );
      expect(text).not.toContain('line 0');
      return finalAnswer('Neither arrived whole.');
    });
    const asked = await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} look`,
      mentions: [discord.botUser.id],
      attachments: [
        { filename: 'photo.png', contentType: 'image/png', body: photo, gzipCutTo: cutTo(photo) },
        { filename: 'notes.txt', contentType: 'text/plain', body: notes, gzipCutTo: cutTo(notes) },
      ],
    });
    await world.handled('message', asked.id);
    expect(discord.botMessages(discord.channels.general)[0]!.content).toBe(
      'I could not look at:\n- photo.png: could not be fetched (sent compressed (gzip) though asked for as stored)',
    );
    expect(store.images.count()).toBe(0);
  });
});
