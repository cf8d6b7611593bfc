/**
 * Where the bot may not make threads, a conversation goes on as a reply chain (issue 44): a reply
 * to one of its answers in the channel is a follow-up, with the conversation's memory, no mention
 * needed; the answer replies to it in turn.
 */
import { PermissionFlagsBits } from 'discord.js';
import { afterEach, expect, it } from 'vitest';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../../support/bot-harness.ts';
import { finalAnswer } from '../../support/fake-model.ts';
import { recordingLogger } from '../../support/recording-logger.ts';

const recording = recordingLogger();

let world: BotWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

it('a reply to its answer in the channel carries the conversation on, with its memory; a reply to someone else does not', async () => {
  world = (await startBotWorld())!;
  const { discord, model } = world;
  const { ViewChannel, SendMessages, ReadMessageHistory, SendMessagesInThreads } = PermissionFlagsBits;
  discord.setBotPermissions(ViewChannel | SendMessages | ReadMessageHistory | SendMessagesInThreads);
  const general = discord.channels.general;
  model.enqueue(finalAnswer('Paris.'));
  await discord.userSays({
    channelId: general,
    author: 'ada',
    content: `${mentionOf(world)} capital of France?`,
    mentions: [discord.botUser.id],
  });
  const [first] = await waitForBotPosts(world, general, 1);
  // Its answer recorded with its run (as it is long before a person could reply).
  await world.bot.queues.idle();

  // Bob replies to the answer without mentioning the bot: a follow-up, with what came before.
  model.enqueue((request) => {
    const said = request.messages.map((message) => (typeof message.content === 'string' ? message.content : ''));
    expect(said).toEqual(expect.arrayContaining(['Ada: capital of France?', 'Bob: and of Italy?']));
    return finalAnswer('Rome.');
  });
  const followUp = await discord.userSays({
    channelId: general,
    author: 'bob',
    content: 'and of Italy?',
    replyTo: first!.id,
  });
  const [, second] = await waitForBotPosts(world, general, 2);
  expect(second!.content).toBe('Rome.');
  expect(second!.message_reference?.message_id).toBe(followUp.id);
  expect(world.store.conversations.guilds()).toEqual([{ guild_id: discord.guildId, conversations: 1 }]);

  // A reply to Bob's message, not the bot's, is no follow-up: handled, and nothing asked of the model.
  const aside = await discord.userSays({ channelId: general, author: 'ada', content: 'nice', replyTo: followUp.id });
  await world.handled('message', aside.id);
  expect(model.requests).toHaveLength(2);
  expect(discord.botMessages(general)).toHaveLength(2);
});

it("a voice channel's text chat, which has no threads, is answered there and goes on as a reply chain", async () => {
  world = await startBotWorld({}, {}, {}, { logger: recording.logger });
  const { discord, model } = world;
  const voice = await discord.createVoiceChannel('lounge');
  model.enqueue(finalAnswer('Muted.'));
  const asked = await discord.userSays({
    channelId: voice,
    author: 'ada',
    content: `${mentionOf(world)} is my mic on?`,
    mentions: [discord.botUser.id],
  });
  const [first] = await waitForBotPosts(world, voice, 1);
  expect(first!.message_reference?.message_id).toBe(asked.id);
  // No thread was tried: a voice channel has none (and no warning says one could not be made).
  expect(discord.threads()).toEqual([]);
  expect(recording.lines.map((line) => line.msg)).not.toContain('could not start a thread: answering in the channel');
  await world.bot.queues.idle();

  model.enqueue((request) => {
    expect(request.messages.at(-1)).toMatchObject({ content: 'Ada: and now?' });
    return finalAnswer('Still muted.');
  });
  await discord.userSays({ channelId: voice, author: 'ada', content: 'and now?', replyTo: first!.id });
  expect((await waitForBotPosts(world, voice, 2))[1]!.content).toBe('Still muted.');
});
