/**
 * Images people post, end to end: the fake Discord serves the files from 127.0.0.1, the real
 * discord.js client receives the message, and the scripted model gets the request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { askInGeneral, type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../../support/bot-harness.ts';
import { dataUrlOf, gif, imageUrlsOf, jpeg, png, textOf, webp } from '../../support/images.ts';
import { finalAnswer } from '../../support/fake-model.ts';
import { noVisionNotice } from '../../../src/discord/inbound/image-notices.ts';

let world: BotWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const mb = 1024 * 1024;

describe('images, with a model that sees', () => {
  it('sends an image as a data URL of its bytes, typed by its bytes, and again with a follow-up', async () => {
    world = await startBotWorld({}, {}, {}, { images: { vision: true } });
    const { discord, model, store } = world;
    const photo = png(64, 48);
    // Named and typed a PNG, but its bytes are a JPEG's: the bytes win.
    const screenshot = jpeg(800, 600);
    model.enqueue((request) => {
      const asked = request.messages.at(-1)!;
      expect(imageUrlsOf(asked)).toEqual([dataUrlOf('image/png', photo), dataUrlOf('image/jpeg', screenshot)]);
      expect(textOf(asked)).toContain('Ada: what is in these?\n[image: photo.png]\n[image: shot.png]');
      return finalAnswer('A grey square and a screenshot.');
    });
    const asked = await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} what is in these?`,
      mentions: [discord.botUser.id],
      attachments: [
        { filename: 'photo.png', contentType: 'image/png', body: photo },
        { filename: 'shot.png', contentType: 'image/png', body: screenshot },
      ],
    });
    const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.id === asked.id));
    await waitForBotPosts(world, thread.id, 1);

    model.enqueue((request) => {
      const first = request.messages.find((message) => message.role === 'user' && textOf(message).includes('these?'))!;
      expect(imageUrlsOf(first)).toEqual([dataUrlOf('image/png', photo), dataUrlOf('image/jpeg', screenshot)]);
      expect(request.messages.at(-1)!.content).toBe('Bob: and the second one, bigger?');
      return finalAnswer('800 × 600.');
    });
    await discord.userSays({ channelId: thread.id, author: 'bob', content: 'and the second one, bigger?' });
    expect((await waitForBotPosts(world, thread.id, 2)).map((post) => post.content)).toEqual([
      'A grey square and a screenshot.',
      '800 × 600.',
    ]);
    expect(store.images.count()).toBe(2);
    // No notice: nothing was refused.
    expect(discord.botMessages(discord.channels.general)).toEqual([]);
  });

  it('refuses what it cannot take, telling the model and the person why: size, animation, a lie, too many', async () => {
    world = await startBotWorld({}, {}, {}, { images: { vision: true, maxBytes: 5 * mb } });
    const { discord, model, store } = world;
    const still = webp(320, 240);
    model.enqueue((request) => {
      const asked = request.messages.at(-1)!;
      expect(imageUrlsOf(asked)).toEqual([dataUrlOf('image/webp', still)]);
      const text = textOf(asked);
      expect(text).toContain('[image huge.png: not shown, 30.0 MB, larger than 5.0 MB (IMAGE_MAX_MB)]');
      expect(text).toContain('[image liar.png: not shown, larger than 5.0 MB (IMAGE_MAX_MB)]');
      expect(text).toContain('[image dance.gif: not shown, animated: only still images are shown');
      return finalAnswer('I see one of them.');
    });
    const asked = await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} look`,
      mentions: [discord.botUser.id],
      attachments: [
        { filename: 'still.webp', contentType: 'image/webp', body: still },
        { filename: 'huge.png', contentType: 'image/png', body: png(8, 8, { padTo: 30 * mb }) },
        // Discord says it is small; its body goes on past the limit.
        { filename: 'liar.png', contentType: 'image/png', body: png(8, 8, { padTo: 6 * mb }), reportedSize: 1000 },
        { filename: 'dance.gif', contentType: 'image/gif', body: gif(4, 4, 3) },
      ],
    });
    const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.id === asked.id));
    await waitForBotPosts(world, thread.id, 1);
    const notice = discord.botMessages(discord.channels.general)[0]!;
    expect(notice.content).toContain('I could not look at:');
    expect(notice.content).toContain('- huge.png: 30.0 MB, larger than 5.0 MB (IMAGE_MAX_MB)');
    expect(notice.content).toContain('- liar.png: larger than 5.0 MB');
    expect(notice.content).toContain('- dance.gif: animated');
    expect(notice.message_reference?.message_id).toBe(asked.id);

    model.enqueue((request) => {
      const asked = request.messages.at(-1)!;
      expect(imageUrlsOf(asked)).toEqual([dataUrlOf('image/gif', gif(4, 4)), dataUrlOf('image/png', png(4, 4))]);
      const text = textOf(asked);
      expect(text).toContain('[image notes.png: not shown, not a PNG, JPEG, WebP or GIF image');
      expect(text).toContain('[image fifth.png: not shown, at most 4 images are taken from one message]');
      return finalAnswer('Two more.');
    });
    const more = await discord.userSays({
      channelId: thread.id,
      author: 'ada',
      content: 'and these',
      attachments: [
        // Typed and named an image, but text: refused by its bytes.
        { filename: 'notes.png', contentType: 'image/png', body: 'not a picture at all' },
        { filename: 'still.gif', contentType: 'image/gif', body: gif(4, 4) },
        { filename: 'tiny.png', contentType: 'image/png', body: png(4, 4) },
        { filename: 'broken.jpg', contentType: 'image/jpeg', body: Buffer.from([0xff, 0xd8, 0xff]) },
        { filename: 'fifth.png', contentType: 'image/png', body: png(4, 4) },
      ],
    });
    await world.handled('message', more.id);
    expect(discord.botMessages(thread.id).at(-2)!.content).toContain('- fifth.png: at most 4 images');
    expect(store.images.count()).toBe(3);
  });
});

describe('images, with a model that cannot see', () => {
  it('tells the model an image was posted, and the person once per thread', async () => {
    world = await startBotWorld({}, {}, {}, { images: { vision: false } });
    const { discord, model, store } = world;
    model.enqueue((request) => {
      expect(request.messages.at(-1)!.content).toBe(
        'Ada: what is this?\n\n[image cat.png: posted, but this model cannot see images, so it is not shown]',
      );
      return finalAnswer('I cannot see it.');
    });
    const asked = await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} what is this?`,
      mentions: [discord.botUser.id],
      attachments: [{ filename: 'cat.png', contentType: 'image/png', body: png(4, 4) }],
    });
    const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.id === asked.id));
    await waitForBotPosts(world, thread.id, 1);
    expect(discord.botMessages(discord.channels.general).map((post) => post.content)).toEqual([noVisionNotice]);

    model.enqueue(finalAnswer('Still cannot.'));
    const again = await discord.userSays({
      channelId: thread.id,
      author: 'ada',
      content: 'and this?',
      attachments: [{ filename: 'dog.jpg', contentType: 'image/jpeg', body: jpeg(4, 4) }],
    });
    await world.handled('message', again.id);
    expect(discord.botMessages(thread.id).map((post) => post.content)).toEqual(['I cannot see it.', 'Still cannot.']);
    expect(discord.botMessages(discord.channels.general)).toHaveLength(1);
    // Nothing fetched, nothing stored.
    expect(discord.filesServed).toEqual([]);
    expect(store.images.count()).toBe(0);
  });
});

describe('images linked from Discord', () => {
  it("takes an image linked from Discord's CDN, and leaves other links as text", async () => {
    world = await startBotWorld({}, {}, {}, { images: { vision: true } });
    const { discord, model } = world;
    const chart = png(120, 80);
    model.enqueue(finalAnswer('Posted.'));
    const { thread } = await askInGeneral(world, 'keep this');
    await waitForBotPosts(world, thread.id, 1);
    const posted = await discord.userSays({
      channelId: thread.id,
      author: 'bob',
      content: 'a chart',
      attachments: [{ filename: 'chart.png', contentType: 'image/png', body: chart }],
    });
    model.enqueue(finalAnswer('Seen.'));
    await world.handled('message', posted.id);

    const cdnLink = discord.messages(thread.id).find((message) => message.id === posted.id)!.attachments[0]!.url;
    // Not Discord's CDN (another host name for the same server): text, never fetched.
    const elsewhere = cdnLink.replace('127.0.0.1', 'localhost');
    model.enqueue((request) => {
      const asked = request.messages.at(-1)!;
      expect(imageUrlsOf(asked)).toEqual([dataUrlOf('image/png', chart)]);
      expect(textOf(asked)).toContain(elsewhere);
      return finalAnswer('The chart again.');
    });
    const linked = await discord.userSays({
      channelId: thread.id,
      author: 'ada',
      content: `compare ${cdnLink}, with ${elsewhere}.`,
    });
    await world.handled('message', linked.id);
    expect(discord.botMessages(thread.id).at(-1)!.content).toBe('The chart again.');
  });
  it('stores and answers a message whose image link is not valid percent-encoding', async () => {
    world = await startBotWorld({}, {}, {}, { images: { vision: true } });
    const { discord, model, store } = world;
    // `%E0` alone is not UTF-8: decodeURIComponent throws on it. On the CDN, but no such file there.
    const link = `${discord.cdnUrl}/attachments/1/2/a%E0.png`;
    model.enqueue((request) => {
      expect(textOf(request.messages.at(-1)!)).toContain(
        '[image a%E0.png: not shown, could not be fetched (HTTP 404)]',
      );
      return finalAnswer('That link did not load.');
    });
    const asked = await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} what is ${link}`,
      mentions: [discord.botUser.id],
    });
    const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.id === asked.id));
    expect((await waitForBotPosts(world, thread.id, 1)).map((post) => post.content)).toEqual([
      'That link did not load.',
    ]);
    expect(store.messages.hasDiscordId(asked.id)).toBe(true);
  });
});

describe('deleting', () => {
  it("deletes a message's images with it, and a thread's with the thread", async () => {
    world = await startBotWorld({}, {}, {}, { images: { vision: true } });
    const { discord, model, store } = world;
    model.enqueue(finalAnswer('One.'), finalAnswer('Two.'));
    const asked = await discord.userSays({
      channelId: discord.channels.general,
      author: 'ada',
      content: `${mentionOf(world)} one`,
      mentions: [discord.botUser.id],
      attachments: [{ filename: 'a.png', contentType: 'image/png', body: png(4, 4) }],
    });
    const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.id === asked.id));
    await waitForBotPosts(world, thread.id, 1);
    const second = await discord.userSays({
      channelId: thread.id,
      author: 'ada',
      content: 'two',
      attachments: [{ filename: 'b.png', contentType: 'image/png', body: png(4, 4) }],
    });
    await world.handled('message', second.id);
    expect(store.images.count()).toBe(2);

    // An edit reads the message again: its text changes, its image stays.
    await discord.userEdits(thread.id, second.id, 'two, edited');
    await world.handled('edit', second.id);
    expect(store.images.count()).toBe(2);
    const stored = store.db.prepare('SELECT content FROM messages WHERE discord_message_id = ?').pluck();
    expect(stored.get(second.id)).toBe('two, edited');

    await discord.userDeletes(thread.id, second.id);
    await world.handled('deletion', second.id);
    expect(store.images.count()).toBe(1);

    await discord.deleteThread(thread.id);
    await discord.waitFor(() => store.images.count() === 0, { what: "the thread's images deleted" });
  });
});

describe('editing', () => {
  it('keeps the images of a message edited or given embeds without fetching them again; an attachment removed takes its image', async () => {
    world = await startBotWorld({}, {}, {}, { images: { vision: true } });
    const { discord, model, store } = world;
    model.enqueue(finalAnswer('Started.'), finalAnswer('Two images.'));
    const { thread } = await askInGeneral(world, 'hello');
    await waitForBotPosts(world, thread.id, 1);
    const posted = await discord.userSays({
      channelId: thread.id,
      author: 'ada',
      content: 'two',
      attachments: [
        { filename: 'a.png', contentType: 'image/png', body: png(4, 4) },
        { filename: 'b.png', contentType: 'image/png', body: png(6, 6) },
      ],
    });
    await world.handled('message', posted.id);
    const names = store.db.prepare('SELECT name FROM message_images ORDER BY message_id, position').pluck();
    expect(names.all()).toEqual(['a.png', 'b.png']);
    const fetched = discord.filesServed.length;

    // Discord adds an embed by itself (the first update of this message: `handled` waits for it).
    await discord.messageChanges(thread.id, posted.id, { embeds: [{ type: 'image', url: 'https://example.com/x' }] });
    await world.handled('edit', posted.id);
    const content = store.db.prepare('SELECT content FROM messages WHERE discord_message_id = ?').pluck();
    await discord.userEdits(thread.id, posted.id, 'two, edited');
    await discord.waitFor(() => content.get(posted.id) === 'two, edited', { what: 'the edit stored' });
    expect(discord.filesServed.length).toBe(fetched);
    expect(names.all()).toEqual(['a.png', 'b.png']);

    await discord.messageChanges(thread.id, posted.id, { removeAttachments: ['a.png'] });
    await discord.waitFor(() => names.all().length === 1, { what: 'the image removed' });
    expect(names.all()).toEqual(['b.png']);
    expect(discord.filesServed.length).toBe(fetched);
  });
});

describe('images with several models (MODELS_FILE)', () => {
  it("go to the place's model if it sees, and only as names (with the notice) where the model chosen cannot", async () => {
    world = await startBotWorld(
      { moderatorRoleIds: ['100000000000000021'] },
      {},
      {},
      {
        models: [
          { name: 'seeing', vision: true },
          { name: 'blind', vision: false },
        ],
      },
    );
    const { discord } = world;
    const seeing = world.modelServers.get('seeing')!;
    const blind = world.modelServers.get('blind')!;
    const moved = await discord.userRunsCommand({
      name: 'settings',
      subcommand: 'model',
      author: 'ada',
      channelId: discord.channels.random,
      options: { model: 'blind' },
    });
    await moved.waitForReply();
    const photo = png(16, 16);
    const post = (channelId: string) =>
      discord.userSays({
        channelId,
        author: 'ada',
        content: `${mentionOf(world!)} what is this?`,
        mentions: [discord.botUser.id],
        attachments: [{ filename: 'photo.png', contentType: 'image/png', body: photo }],
      });

    seeing.enqueue((request) => {
      expect(imageUrlsOf(request.messages.at(-1)!)).toEqual([dataUrlOf('image/png', photo)]);
      return finalAnswer('A small square.');
    });
    const inGeneral = await post(discord.channels.general);
    await waitForBotPosts(world, inGeneral.id, 1);

    blind.enqueue((request) => {
      const asked = request.messages.at(-1)!;
      expect(imageUrlsOf(asked)).toEqual([]);
      expect(textOf(asked)).toContain('photo.png');
      return finalAnswer('I cannot see it.');
    });
    const inRandom = await post(discord.channels.random);
    await waitForBotPosts(world, inRandom.id, 1);
    expect(discord.botMessages(discord.channels.random).map((message) => message.content)).toContain(noVisionNotice);
    expect(discord.botMessages(discord.channels.general).map((message) => message.content)).not.toContain(
      noVisionNotice,
    );
    // Kept all the same: the thread in #random may be switched to a model that sees.
    expect(world.store.images.count()).toBe(2);
  });
});
