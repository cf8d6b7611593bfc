/**
 * Forum channels (issue 44): a new post is a conversation in its thread, answered when the bot is
 * mentioned, or every new post once a moderator turns that on (`/settings forum-answers`). The
 * post's title and first message are the question; its tags are known to the agent.
 */
import type { APIGuildForumChannel, APIThreadChannel } from 'discord.js';
import { afterEach, expect, it } from 'vitest';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../../support/bot-harness.ts';
import { finalAnswer } from '../../support/fake-model.ts';

let world: BotWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const systemOf = (request: { messages: readonly { role: string; content?: unknown }[] }) =>
  String(request.messages.find((message) => message.role === 'system')?.content);

it('a post that mentions the bot is answered in it, its title and message the question, its tags known', async () => {
  world = await startBotWorld();
  const { discord, model } = world;
  const forum = await discord.createForum('help', ['bug', 'question', 'solved']);
  model.enqueue((request) => {
    expect(systemOf(request)).toContain('in the post "Login fails" of the forum #help, tagged "bug".');
    expect(request.messages.at(-1)).toMatchObject({ role: 'user', content: 'Ada: Login fails\n\nit says 403' });
    return finalAnswer('Your token expired.');
  });
  const { thread } = await discord.userStartsForumPost({
    forumId: forum,
    author: 'ada',
    title: 'Login fails',
    tags: ['bug'],
    content: `${mentionOf(world)} it says 403`,
    mentions: [discord.botUser.id],
  });
  expect((await waitForBotPosts(world, thread.id, 1))[0]!.content).toBe('Your token expired.');

  // A follow-up in the post needs no mention, as in a thread (after the "Mark solved" offer).
  model.enqueue(finalAnswer('Log in again.'));
  await discord.userSays({ channelId: thread.id, author: 'ada', content: 'what now?' });
  expect((await waitForBotPosts(world, thread.id, 3))[2]!.content).toBe('Log in again.');
});

it('a post without a mention is left alone, until a moderator has every new post answered', async () => {
  world = await startBotWorld();
  const { discord, model } = world;
  const forum = await discord.createForum('help', ['question']);
  const quiet = await discord.userStartsForumPost({
    forumId: forum,
    author: 'bob',
    title: 'Dark mode?',
    content: 'is there one?',
  });
  await world.handled('message', quiet.message.id);
  expect(model.requests).toHaveLength(0);

  // Ada moderates: in a post, the setting's channel is the forum.
  const set = await discord.userRunsCommand({
    name: 'settings',
    subcommand: 'forum-answers',
    options: { enabled: true },
    author: 'ada',
    channelId: quiet.thread.id,
  });
  expect((await set.waitForReply()).content).toBe(
    'Every new forum post in this channel and its threads is answered now, mention or not.',
  );

  model.enqueue(finalAnswer('Settings → Appearance.'));
  const asked = await discord.userStartsForumPost({
    forumId: forum,
    author: 'bob',
    title: 'Light mode?',
    content: 'where?',
  });
  expect((await waitForBotPosts(world, asked.thread.id, 1))[0]!.content).toBe('Settings → Appearance.');
  // The first post stays unanswered: the setting answers new posts, not old ones.
  expect(discord.botMessages(quiet.thread.id)).toEqual([]);
});

it('after the first answer, "Mark solved" is offered: the asker may press it (not another member), and the post gets the solved tag', async () => {
  world = await startBotWorld();
  const { discord, model } = world;
  const forum = await discord.createForum('help', ['bug', 'Solved']);
  model.enqueue(finalAnswer('Clear the cache.'), finalAnswer('Then restart.'));
  const { thread } = await discord.userStartsForumPost({
    forumId: forum,
    author: 'bob',
    title: 'Slow app',
    tags: ['bug'],
    content: `${mentionOf(world)} it lags`,
    mentions: [discord.botUser.id],
  });
  const [, offer] = await waitForBotPosts(world, thread.id, 2);
  expect(offer!.content).toBe('-# Did this answer the post? Its asker or a moderator can mark it solved.');
  expect(offer!.components?.[0]).toMatchObject({ components: [{ label: 'Mark solved', custom_id: 'solved:press' }] });

  // A later answer in the post offers it no more.
  await discord.userSays({ channelId: thread.id, author: 'bob', content: 'still slow' });
  await waitForBotPosts(world, thread.id, 3);
  await world.bot.queues.idle();
  expect(discord.botMessages(thread.id)).toHaveLength(3);

  const carol = { id: '400000000000000009', username: 'carol' };
  const byCarol = await discord.userPressesMessageButton({
    channelId: thread.id,
    messageId: offer!.id,
    customId: 'solved:press',
    author: carol,
  });
  expect(await byCarol.waitForReply()).toMatchObject({
    ephemeral: true,
    content: 'Only the one who asked, or a moderator, can mark this post solved.',
  });
  const tagsOf = (id: string) => (discord.channel(id) as APIThreadChannel).applied_tags;
  const solvedTag = (discord.channel(forum) as APIGuildForumChannel).available_tags.find(
    (tag) => tag.name === 'Solved',
  )!.id;
  expect(tagsOf(thread.id)).not.toContain(solvedTag);

  await discord.userPressesMessageButton({
    channelId: thread.id,
    messageId: offer!.id,
    customId: 'solved:press',
    author: 'bob',
  });
  await discord.waitFor(() => tagsOf(thread.id)?.includes(solvedTag), {
    what: 'the solved tag',
  });
  const marked = await discord.waitFor(() =>
    discord.messages(thread.id).find((message) => message.id === offer!.id && message.components?.length === 0),
  );
  expect(marked.content).toBe('-# ✅ Marked solved by Bob (Solved).');
  // The tag it had stays.
  expect(tagsOf(thread.id)).toHaveLength(2);
});
