/**
 * A mention in a channel where nothing was ever said, posted while the bot (a real process, on a
 * fresh database) was stopped: answered at the next start, because the bot noted where it started
 * watching each channel when it first connected. What was said before that is not read back.
 */
import { expect, it } from 'vitest';
import type { BotProcess } from '../../support/bot-process.ts';
import { useBotProcessWorld } from '../../support/bot-process-world.ts';
import { finalAnswer } from '../../support/fake-model.ts';

const world = useBotProcessWorld('quiet-');

it(
  'answers a mention posted while it was stopped in a channel never spoken in, once, in a thread made from it',
  { timeout: 60_000 },
  async () => {
    const start = () => world.start();
    const stop = async (bot: BotProcess) => {
      bot.child.kill('SIGTERM');
      expect(await bot.exited).toBe(0);
    };
    const mention = (channelId: string, text: string) =>
      world.discord.userSays({
        channelId,
        author: 'ada',
        content: `<@${world.discord.botUser.id}> ${text}`,
        mentions: [world.discord.botUser.id],
      });
    const { general, random } = world.discord.channels;
    // Before the bot ever connected: history, not read back.
    await mention(general, 'are you there yet?');
    expect(world.discord.messages(random)).toEqual([]);

    await stop(await start());
    const missed = await mention(random, 'what is 2+2?');
    world.model.enqueue(finalAnswer('4, sorry for the wait.'));
    const second = await start();

    expect((await second.waitForLog('caught up after downtime')).missed).toBe(1);
    const thread = await world.discord.waitFor(
      () => world.discord.threads().find((candidate) => candidate.id === missed.id),
      {
        what: 'a thread made from the missed mention',
      },
    );
    await world.discord.waitFor(() => world.discord.botMessages(thread.id).length > 0, {
      what: 'the answer',
      timeoutMs: 15_000,
    });
    // SIGTERM lets runs finish: anything else it queued would be answered before it exits.
    await stop(second);
    expect(world.model.requests).toHaveLength(1);
    expect(world.model.requests[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'Ada: what is 2+2?' });
    expect(world.discord.threads().map((candidate) => candidate.id)).toEqual([missed.id]);
    expect(world.discord.botMessages().map((post) => post.content)).toEqual(['4, sorry for the wait.']);
  },
);
