/**
 * Model output, tool arguments, slash command options and display names full of @everyone, @here,
 * role and user mentions ping nobody, on every kind of post the bot makes: tool posts (results
 * and errors), answers, the pieces of a split answer, reminders (which ping the person who asked,
 * and only them), /tool results, the question /ask shows, and /reset's notice. The bot may
 * mention @everyone here (Mention Everyone granted), so a wrong `allowed_mentions` would ping.
 */
import { PermissionFlagsBits } from 'discord.js';
import { afterEach, expect, it } from 'vitest';
import { type BotWorld, mentionOf, startBotWorld } from '../support/bot-harness.ts';
import { defaultBotPermissions } from '../support/fake-discord.ts';
import { finalAnswer, toolCalls } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
});

/** Routes whose body is a message the bot posts or shows (the callback's `data` for interactions). */
const messageBodies = () =>
  world.discord.requests.flatMap((request) => {
    const body = request.body as Record<string, unknown> | undefined;
    if (!body) return [];
    if (request.method === 'POST' && /^\/interactions\/\d+\/[^/]+\/callback$/.test(request.path))
      return body.type === 4 ? [{ request, message: body.data as Record<string, unknown> }] : [];
    if (/^\/channels\/\d+\/messages(\/\d+)?$/.test(request.path) || request.path.startsWith('/webhooks/'))
      return typeof body.content === 'string' ? [{ request, message: body }] : [];
    return [];
  });

it('pings nobody from hostile text on any post, except the asker of a reminder', async () => {
  world = await startBotWorld({}, {}, {}, { databaseTools: true, schedulerIntervalMs: 50 });
  const { discord, model } = world;
  discord.setBotPermissions(defaultBotPermissions | PermissionFlagsBits.MentionEveryone);
  const { ada, bob } = discord.users;
  const hostile = `@everyone @here <@${bob}> <@!${bob}> <@&${discord.roles.moderator}> <@&${discord.guildId}>`;
  const hostileUser = { id: '400000000000000077', username: `${hostile} (display name)` };

  // A run: a tool error that echoes its arguments, a reminder, then a split answer, all hostile.
  const long = Array.from({ length: 40 }, (_, index) => `${index} ${'word '.repeat(12)}${hostile}`).join('\n');
  model.enqueue(
    toolCalls(
      { name: 'calculator', arguments: { expression: hostile } },
      { name: 'remind_me', arguments: { text: hostile, in_minutes: 0.002, at: null } },
    ),
    finalAnswer(hostile, ['remind_me']),
    finalAnswer(long),
  );
  await discord.userSays({
    channelId: discord.channels.general,
    author: 'ada',
    content: `${mentionOf(world)} ${hostile}`,
    mentions: [discord.botUser.id, bob],
    mentionEveryone: true,
  });
  const thread = await discord.waitFor(() => discord.threads()[0]);
  await discord.waitFor(() => discord.botMessages(thread.id).some((post) => post.content.includes('reminder:')), {
    what: 'the reminder posted',
  });
  await discord.userSays({ channelId: thread.id, author: 'ada', content: 'the long one' });
  await discord.waitFor(
    () => discord.botMessages(thread.id).filter((post) => post.content.includes('word word')).length >= 2,
    { what: 'the split answer' },
  );

  // /tool with hostile options, publicly; /ask with a hostile prompt; /reset by someone whose name is hostile.
  const calculator = await discord.userRunsCommand({
    name: 'tool',
    subcommand: 'calculator',
    options: { expression: hostile },
    author: 'bob',
    channelId: thread.id,
  });
  await calculator.waitForReply();
  model.enqueue(finalAnswer(hostile));
  const ask = await discord.userRunsCommand({
    name: 'ask',
    options: { prompt: hostile },
    author: hostileUser,
    channelId: discord.channels.random,
  });
  await ask.waitForReply();
  const asked = await discord.waitFor(() =>
    discord.threads().find((candidate) => candidate.parent_id === discord.channels.random),
  );
  await discord.waitFor(() => discord.botMessages(asked.id).length === 2, { what: "/ask's question and answer" });
  const reset = await discord.userRunsCommand({ name: 'reset', author: hostileUser, channelId: asked.id });
  await reset.waitForReply();
  await world.bot.queues.idle();

  const posted = discord.botMessages();
  const kinds = {
    'tool post': posted.filter(
      (post) =>
        post.content.startsWith('🔧 **calculator**') && post.channel_id === thread.id && post.content.includes('✗'),
    ),
    answer: posted.filter((post) => post.content.startsWith(hostile) && post.channel_id === thread.id),
    'split answer pieces': posted.filter((post) => post.content.includes('word word')),
    reminder: posted.filter((post) => post.content.includes('reminder:')),
    '/tool result': posted.filter(
      (post) => post.interaction_metadata !== undefined && post.content.includes('calculator'),
    ),
    "/ask's question": posted.filter((post) => post.content.startsWith(`**${hostileUser.username}** asked:`)),
    "/reset's notice": posted.filter((post) =>
      post.content.startsWith(`${hostileUser.username} reset this conversation`),
    ),
  };
  for (const [kind, posts] of Object.entries(kinds)) expect(posts.length, kind).toBeGreaterThan(0);
  expect(kinds['split answer pieces'].length).toBeGreaterThanOrEqual(2);
  for (const post of posted) {
    expect(post.mention_everyone, post.content.slice(0, 80)).toBe(false);
    expect(post.mention_roles, post.content.slice(0, 80)).toEqual([]);
    const pinged = post.mentions.map((user) => user.id);
    expect(pinged, post.content.slice(0, 80)).toEqual(kinds.reminder.includes(post) ? [ada] : []);
  }
  // What was sent, not only what Discord made of it: allowed_mentions on every message body.
  const bodies = messageBodies();
  expect(bodies.length).toBeGreaterThanOrEqual(posted.length);
  for (const { request, message } of bodies) {
    const allowed = message.allowed_mentions as
      | { parse?: string[]; roles?: string[]; users?: string[]; replied_user?: boolean }
      | undefined;
    expect(allowed, `${request.method} ${request.path}`).toBeDefined();
    expect(allowed!.parse ?? []).toEqual([]);
    expect(allowed!.roles ?? []).toEqual([]);
    expect(allowed!.replied_user ?? false).toBe(false);
    expect(allowed!.users ?? []).toEqual(String(message.content).includes('reminder:') ? [ada] : []);
  }
  expect(discord.takeProblems()).toEqual([]);
});
