import { type BotWorld } from '../test/support/bot-harness.ts';
import { finalAnswer } from '../test/support/fake-model.ts';

/** Ada mentions the bot in #general; resolves with the thread it opens, once its first answer is in. */
export async function openFirstThread({ discord, model }: BotWorld): Promise<{ id: string }> {
  model.enqueue(finalAnswer('Ready.'));
  await discord.userSays({
    channelId: discord.channels.general,
    author: 'ada',
    content: `<@${discord.botUser.id}> start`,
    mentions: [discord.botUser.id],
  });
  const thread = await discord.waitFor(() => discord.threads()[0]);
  await discord.waitFor(() => discord.botMessages(thread.id).length === 1);
  return thread;
}
