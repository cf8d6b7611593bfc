/**
 * `npm run bench:log-channel`: does the moderators' log channel delay answers? The same burst twice,
 * through the real bot in-process, discord.js and the fake Discord, an echo model answering after
 * 260 ms: QUESTIONS (200) people mention the bot in #general at once, each gets a thread and an
 * answer; once without a log channel, once with one (the production pace, a post a second at
 * least). For each question: from its MESSAGE_CREATE to its answer's POST reaching Discord (the
 * first visible text); p50, p99, max; the REST calls; the log's posts and cards, and when the last
 * card was posted.
 */
import { type BotWorld, mentionOf, startBotWorld } from '../test/support/bot-harness.ts';
import { startEchoModel } from '../test/support/fake-model.ts';
import { quantile } from './statistics.ts';
import { sized } from './smoke.ts';

const questions = Number(process.env.QUESTIONS ?? sized(200, 4));
const moderatorRole = '100000000000000021';

interface Result {
  firstVisibleMs: number[];
  restCalls: number;
  logPosts: number;
  logCards: number;
  lastCardMs: number | null;
}

async function burst(withLog: boolean): Promise<Result> {
  const model = await startEchoModel({ latencyMs: 260, streamPieces: 3 });
  const world: BotWorld = await startBotWorld(
    { moderatorRoleIds: [moderatorRole], toolPosts: 'off' },
    {},
    { baseURL: model.baseURL, provider: 'openai' },
  );
  const { discord } = world;
  try {
    const logChannel = await discord.createChannel('mod-log');
    if (withLog) {
      const set = await discord.userRunsCommand({
        name: 'settings',
        subcommand: 'log-channel',
        author: 'ada',
        channelId: discord.channels.general,
        options: { channel: logChannel },
      });
      await set.waitForReply();
    }
    const before = discord.requests.length;
    const asked: { id: string; at: number }[] = [];
    for (let index = 0; index < questions; index++) {
      const at = performance.now();
      const message = await discord.userSays({
        channelId: discord.channels.general,
        author: 'ada',
        content: `${mentionOf(world)} question [q${index}]`,
        mentions: [discord.botUser.id],
      });
      asked.push({ id: message.id, at });
    }
    const answerAt = (threadId: string) =>
      discord.requests.find((request) => request.method === 'POST' && request.path === `/channels/${threadId}/messages`)
        ?.time;
    await discord.waitFor(() => asked.every((question) => answerAt(question.id) !== undefined), {
      what: 'every answer',
      timeoutMs: 300_000,
    });
    const start = asked[0]!.at;
    if (withLog)
      await discord.waitFor(() => world.store.logOutbox.guilds().length === 0, {
        what: 'every card posted',
        timeoutMs: 300_000,
      });
    const logPosts = discord.requests.filter(
      (request) => request.path === `/channels/${logChannel}/messages` && request.status === 200,
    );
    return {
      firstVisibleMs: asked.map((question) => answerAt(question.id)! - question.at),
      restCalls: discord.requests.length - before,
      logPosts: logPosts.length,
      logCards: discord.botMessages(logChannel).flatMap((message) => message.embeds).length,
      lastCardMs: logPosts.length > 0 ? logPosts.at(-1)!.time - start : null,
    };
  } finally {
    await world.close();
    await model.close();
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const rows: [string, Result][] = [
  ['no log channel', await burst(false)],
  ['log channel', await burst(true)],
];
console.log(`${questions} questions at once, each in a new thread; the echo model answers in 260 ms\n`);
console.log('| | first visible text p50 | p99 | max | REST calls | log posts | log cards | last card |');
console.log('|---|--:|--:|--:|--:|--:|--:|--:|');
for (const [name, result] of rows)
  console.log(
    `| ${name} | ${seconds(quantile(result.firstVisibleMs, 0.5))} | ${seconds(quantile(result.firstVisibleMs, 0.99))} | ${seconds(Math.max(...result.firstVisibleMs))} | ${result.restCalls} | ${result.logPosts} | ${result.logCards} | ${result.lastCardMs === null ? '–' : seconds(result.lastCardMs)} |`,
  );
