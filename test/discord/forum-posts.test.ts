/**
 * Forum channels (issue 44): a new post is a conversation in its thread, answered when the bot is
 * mentioned, or every new post once a moderator turns that on (`/settings forum-answers`). The
 * post's title and first message are the question; its tags are known to the agent.
 */
import { afterEach, expect, it } from 'vitest';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { finalAnswer } from '../support/fake-model.ts';

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

  // A follow-up in the post needs no mention, as in a thread.
  model.enqueue(finalAnswer('Log in again.'));
  await discord.userSays({ channelId: thread.id, author: 'ada', content: 'what now?' });
  expect((await waitForBotPosts(world, thread.id, 2))[1]!.content).toBe('Log in again.');
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
