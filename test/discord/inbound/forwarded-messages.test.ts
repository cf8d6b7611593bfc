/**
 * Forwarded messages: Discord sends a forward with empty text of its own and what was forwarded in
 * `message_snapshots` (issue 44). The bot reads the snapshot's text, attachments, embeds and images
 * as the message's content, marked as forwarded with a link to where it came from, under the same
 * checks as any message.
 */
import { afterEach, expect, it } from 'vitest';
import { askInGeneral, type BotWorld, startBotWorld, waitForBotPosts } from '../../support/bot-harness.ts';
import { dataUrlOf, imageUrlsOf, png, textOf } from '../../support/images.ts';
import { finalAnswer } from '../../support/fake-model.ts';

let world: BotWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

it('a message forwarded into the thread is read whole: its text, attachment, embed and image, marked with where it came from', async () => {
  world = await startBotWorld({}, {}, {}, { images: { vision: true } });
  const { discord, model } = world;
  model.enqueue(finalAnswer('Send me the log.'));
  const { thread } = await askInGeneral(world, 'why did the deploy fail?');
  await waitForBotPosts(world, thread.id, 1);

  const screen = png(32, 24);
  const original = await discord.userSays({
    channelId: discord.channels.random,
    author: 'bob',
    content: 'deploy failed at step 3',
    attachments: [
      { filename: 'deploy.log', contentType: 'text/plain', body: 'step 3: disk full' },
      { filename: 'screen.png', contentType: 'image/png', body: screen },
    ],
    embeds: [
      {
        title: 'Build #42',
        url: 'https://ci.example/42',
        description: 'red',
        fields: [{ name: 'stage', value: 'deploy' }],
      },
    ],
  });
  model.enqueue((request) => {
    const forwarded = request.messages.at(-1)!;
    const text = textOf(forwarded);
    expect(text).toContain(
      `[Forwarded message, from https://discord.com/channels/${original.guild_id}/${discord.channels.random}/${original.id}]`,
    );
    expect(text).toContain('deploy failed at step 3');
    expect(text).toContain('[Attachment deploy.log]\n```\nstep 3: disk full\n```');
    expect(text).toContain('[Embed Build #42 (https://ci.example/42)]\nred\nstage: deploy');
    expect(imageUrlsOf(forwarded)).toEqual([dataUrlOf('image/png', screen)]);
    return finalAnswer('The disk is full.');
  });
  const forward = await discord.userSays({
    channelId: thread.id,
    author: 'ada',
    content: '',
    forwardOf: { channelId: discord.channels.random, messageId: original.id },
  });
  expect((await waitForBotPosts(world, thread.id, 2)).at(-1)!.content).toContain('The disk is full.');
  // Stored as the message's content: what the memory, the search tools and the content checks read.
  const stored = world.store.db
    .prepare('SELECT content FROM messages WHERE discord_message_id = ?')
    .get(forward.id) as { content: string };
  expect(stored.content).toContain('deploy failed at step 3');
});
