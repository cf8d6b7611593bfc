/**
 * `npm run screenshots`: the README's pictures, made from a real run. The bot (its real code, the
 * real discord.js client) answers in the project's fake Discord with a fake model server; what it
 * posted is drawn as Discord's dark theme shows it (scripts/discord-page.ts) and photographed by
 * headless Chromium (Debian's `chromium`: `apt-get install chromium`). Run it again when the look of
 * the posts changes; it writes docs/screenshots/*.png.
 *
 * Pictures: a thread (the question, the tool posts, the answer), the answer shown as it is written,
 * the moderators' log channel (a run's card), and `/steps` in the thread (only the asker sees it).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BotWorld, mentionOf, startBotWorld } from '../test/support/bot-harness.ts';
import type { FakeMessage } from '../test/support/fake-discord/types.ts';
import { type FakeModelServer, startFakeModelServer } from '../test/support/fake-model.ts';
import { answer, call } from '../test/support/model-servers/brain.ts';
import { compliant } from '../test/support/model-servers/quirks.ts';
import { discordPage, type DrawnEmbed, type DrawnMessage, type Names } from './discord-page.ts';

const out = join(import.meta.dirname, '..', 'docs', 'screenshots');
const width = 560;
const question = 'what is 17% of 2,340, and what time is it in Tokyo now?';
const answerText = [
  '**17% of 2,340 is 397.8.**',
  '',
  'In Tokyo it is now the evening of the same day (Japan Standard Time, UTC+9), so a call there would reach people after work.',
  '',
  '- 2,340 × 0.17 = 397.8',
  '- Tokyo does not change its clocks in summer.',
].join('\n');

/** Headless Chromium's picture of the page, as tall as its content. */
function photograph(name: string, html: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'screenshot-'));
  const page = join(dir, 'page.html');
  writeFileSync(page, html.replace('</body>', '<script>document.title = document.body.scrollHeight</script></body>'));
  const chromium = ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', `--window-size=${width},4000`];
  const dom = execFileSync('chromium', [...chromium, '--dump-dom', `file://${page}`], {
    encoding: 'utf8',
    stdio: 'pipe',
  });
  const height = Number(/<title>(\d+)<\/title>/.exec(dom)?.[1] ?? 800);
  const target = join(out, `${name}.png`);
  execFileSync(
    'chromium',
    [...chromium.slice(0, -1), `--window-size=${width},${height}`, `--screenshot=${target}`, `file://${page}`],
    {
      stdio: 'pipe',
    },
  );
  console.log(`wrote ${target} (${width}×${height})`);
}

function drawn(message: FakeMessage, world: BotWorld): DrawnMessage {
  const bot = message.author.id === world.discord.botUser.id;
  return {
    author: {
      name: bot ? 'Agent' : (message.author.global_name ?? message.author.username),
      bot,
      colour: bot ? '#5865f2' : '#e67e22',
    },
    at: 'Today at 09:41',
    content: message.content,
    embeds: (message.embeds ?? []) as DrawnEmbed[],
    buttons: labelsOf(message.components),
  };
}

/** The labels of a message's buttons and the placeholder of its menus. */
function labelsOf(components: unknown): string[] {
  const rows = (components ?? []) as { components?: { label?: string; placeholder?: string }[] }[];
  return rows.flatMap((row) => row.components ?? []).flatMap((part) => part.label ?? part.placeholder ?? []);
}

function namesOf(world: BotWorld, channels: Record<string, string>): Names {
  const users = new Map<string, string>([[world.discord.botUser.id, 'Agent']]);
  for (const [name, id] of Object.entries(world.discord.users)) users.set(id, name[0]!.toUpperCase() + name.slice(1));
  return { users, channels: new Map(Object.entries(channels).map(([name, id]) => [id, name])) };
}

/** The model's stream of the answer waits here until the live answer is photographed. */
let release!: () => void;
const released = new Promise<void>((resolve) => (release = resolve));

async function main(server: FakeModelServer, world: BotWorld): Promise<void> {
  const { discord } = world;
  mkdirSync(out, { recursive: true });
  const logChannel = await discord.createChannel('mod-log');
  await (
    await discord.userRunsCommand({
      name: 'settings',
      subcommand: 'log-channel',
      author: 'ada',
      channelId: discord.channels.general,
      options: { channel: logChannel },
    })
  ).waitForReply();

  server.enqueue(
    call('calculator', { expression: '2340 * 0.17' }),
    call('current_time', { time_zone: 'Asia/Tokyo' }),
    answer(answerText, ['calculator', 'current_time']),
  );
  const asked = await discord.userSays({
    channelId: discord.channels.general,
    author: 'ada',
    content: `${mentionOf(world)} ${question}`,
    mentions: [discord.botUser.id],
  });
  const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.id === asked.id));
  const names = namesOf(world, { general: discord.channels.general, 'mod-log': logChannel, [thread.name!]: thread.id });
  const threadPage = () =>
    discordPage(thread.name!, [drawn(asked, world), ...discord.messages(thread.id).map((m) => drawn(m, world))], names);

  // The answer as it is being written: the model holds its stream until the picture is taken.
  await discord.waitFor(() => discord.botMessages(thread.id).some((m) => m.content.startsWith('**17%')), {
    what: 'the live answer',
  });
  photograph('live-answer', threadPage());
  release();
  await discord.waitFor(() => discord.botMessages(thread.id).some((m) => m.content.includes('summer.')), {
    what: 'the answer',
  });
  await world.bot.queues.idle();
  photograph('thread', threadPage());

  const runCard = (m: FakeMessage) => (m.embeds ?? []).some((embed) => embed.title?.includes('Answered'));
  await discord.waitFor(() => discord.botMessages(logChannel).some(runCard), { what: 'the run card' });
  photograph(
    'log-channel',
    discordPage(
      'mod-log',
      discord.messages(logChannel).map((m) => drawn(m, world)),
      names,
    ),
  );

  const steps = await (
    await discord.userRunsCommand({ name: 'steps', author: 'ada', channelId: thread.id })
  ).waitForReply();
  photograph(
    'steps',
    discordPage(
      thread.name!,
      [
        {
          author: { name: 'Agent', bot: true },
          at: 'Today at 09:42',
          content: steps.content,
          buttons: labelsOf(steps.components),
          onlyYou: true,
        },
      ],
      names,
    ),
  );
}

const server = await startFakeModelServer(compliant, { streamPause: { afterChunks: 18, until: () => released } });
const world = await startBotWorld(
  { streamAnswers: true },
  {},
  { baseURL: server.baseURL, provider: 'openai' },
  { logPaceMs: 50 },
);
try {
  await main(server, world);
} finally {
  await world.close();
  await server.close();
}
