/**
 * "Ask about this message" (issue 44's message context menu, for a server that added the bot): a
 * form asks the question, then a conversation thread starts with the message as its context.
 */
import { afterEach, expect, it } from 'vitest';
import { type BotWorld, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { finalAnswer } from '../support/fake-model.ts';

let world: BotWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

it('asks the agent with the message as the question’s context, in a new thread; empty, a default question is asked', async () => {
  world = await startBotWorld();
  const { discord, model } = world;
  const about = await discord.userSays({
    channelId: discord.channels.general,
    author: 'bob',
    content: 'The release moves to Friday because CI is red.',
    attachments: [{ filename: 'ci.log', contentType: 'text/plain', body: 'red' }],
  });
  const link = `https://discord.com/channels/${discord.guildId}/${discord.channels.general}/${about.id}`;
  const ask = () =>
    discord.userRunsCommand({
      name: 'Ask about this message',
      type: 'message',
      targetMessageId: about.id,
      author: 'ada',
      channelId: discord.channels.general,
    });

  model.enqueue((request) => {
    expect(request.messages.at(-1)).toMatchObject({
      role: 'user',
      content: `Ada: why Friday?\n\n[The message asked about, by Bob (${link})]\nThe release moves to Friday because CI is red.\n[attachment ci.log]`,
    });
    return finalAnswer('Because CI is red.');
  });
  const opened = await ask();
  expect((await opened.waitForModal()).title).toBe('Ask about this message');
  const submitted = await discord.userSubmitsModal(opened, { question: 'why Friday?' });
  expect(await submitted.waitForReply()).toMatchObject({
    ephemeral: true,
    content: expect.stringMatching(/^Started: <#\d+>$/),
  });
  const thread = discord.threads()[0]!;
  const [shown, answer] = await waitForBotPosts(world, thread.id, 2);
  expect(shown!.content).toBe(`**Ada** asked: why Friday? (about ${link})`);
  expect(answer!.content).toBe('Because CI is red.');

  model.enqueue((request) => {
    expect(String(request.messages.at(-1)!.content)).toMatch(
      /^Ada: What does this message say, and what should I know about it\?\n\n\[The message asked about/,
    );
    return finalAnswer('A release note.');
  });
  const again = await ask();
  await again.waitForModal();
  await (await discord.userSubmitsModal(again, { question: '' })).waitForReply();
  await waitForBotPosts(world, discord.threads()[1]!.id, 2);
});
