/**
 * What the slash-command tests (test/commands/) share: a conversation to run commands in, and a
 * tool only moderators may run.
 */
import { z } from 'zod';
import { defineTool } from '../../tools/define-tool.ts';
import { type BotWorld, mentionOf, waitForBotPosts } from './bot-harness.ts';
import { finalAnswer } from './fake-model.ts';

/** Ada mentions the bot in #general with `content`; the model answers `answer`. Resolves with the thread, once answered. */
export async function answeredConversation(world: BotWorld, content = 'hello', answer = 'Hi.') {
  world.model.enqueue(finalAnswer(answer));
  await world.discord.userSays({
    channelId: world.discord.channels.general,
    author: 'ada',
    content: `${mentionOf(world)} ${content}`,
    mentions: [world.discord.botUser.id],
  });
  const thread = await world.discord.waitFor(() => world.discord.threads()[0]);
  await waitForBotPosts(world, thread.id, 1);
  return thread;
}

/** A tool only moderators may run (or be offered). */
export const purgeCache = defineTool({
  name: 'purge_cache',
  description: 'Moderators only.',
  parameters: z.object({}),
  moderatorOnly: true,
  execute: () => 'purged',
});
