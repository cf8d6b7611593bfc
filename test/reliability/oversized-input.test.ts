/**
 * Oversized input is stored whole, bounded on its way to the model, and answered: a 4,000-character
 * message (what Discord allows with Nitro), ten attachments read up to ATTACHMENT_MAX_KB each, one
 * attachment far over it, a 4,000-character /ask prompt, and a batch of twenty such messages. What
 * the model receives of each message is at most MEMORY_MESSAGE_TOKEN_CAP tokens (here 300).
 */
import { afterEach, beforeAll, expect, it } from 'vitest';
import { loadTokenCounter, type TokenCounter } from '../../src/memory/token-counter.ts';
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { type ChatRequest, finalAnswer } from '../support/fake-model.ts';

const cap = 300;
const attachmentMaxKb = 16;
let counter: TokenCounter;
let world: BotWorld;
beforeAll(async () => {
  counter = await loadTokenCounter('gpt-4.1-mini');
});
afterEach(async () => {
  await world?.close();
});

/** `length` characters of words that do not repeat, so that they cost many tokens. */
const words = (length: number, prefix = 'w') =>
  `${Array.from({ length }, (_, index) => `${prefix}${index.toString(36)}`)
    .join(' ')
    .slice(0, length - 1)}.`;
const cutMark = '\n[…cut]';

/** Every user message the model was sent holds at most `cap` tokens (plus the cut mark). */
function expectBounded(request: ChatRequest): void {
  for (const message of request.messages.filter((candidate) => candidate.role === 'user')) {
    const content = message.content ?? '';
    expect(counter.count(content.endsWith(cutMark) ? content.slice(0, -cutMark.length) : content)).toBeLessThanOrEqual(
      cap,
    );
  }
}

async function start(): Promise<BotWorld> {
  world = await startBotWorld(
    { attachmentMaxBytes: attachmentMaxKb * 1024 },
    {},
    {},
    { memory: { messageTokenCap: cap } },
  );
  world.model.otherwise((request) => {
    expectBounded(request);
    return finalAnswer('Read what I could.');
  });
  return world;
}

const storedContent = (discordId: string) =>
  world.store.db.prepare('SELECT content FROM messages WHERE discord_message_id = ?').pluck().get(discordId) as
    | string
    | undefined;

it('stores a 4,000-character message whole, sends the model at most the cap, and answers', async () => {
  const { discord, model } = await start();
  const text = words(4000);
  expect(text).toHaveLength(4000);
  const asked = await discord.userSays({
    channelId: discord.channels.general,
    author: 'ada',
    content: `${mentionOf(world)}${text}`,
    mentions: [discord.botUser.id],
  });
  const thread = await discord.waitFor(() => discord.threads()[0]);

  expect((await waitForBotPosts(world, thread.id, 1))[0]!.content).toBe('Read what I could.');
  expect(storedContent(asked.id)).toBe(text);
  const sent = model.requests[0]!.messages.at(-1)!.content!;
  expect(sent.startsWith(`Ada: ${text.slice(0, 100)}`)).toBe(true);
  expect(sent.endsWith(cutMark)).toBe(true);
  expect(thread.name.length).toBeLessThanOrEqual(100);
});

it('reads ten attachments up to ATTACHMENT_MAX_KB each, names the one far over it, and bounds what the model gets', async () => {
  const { discord, model } = await start();
  const attachments = [
    ...Array.from({ length: 10 }, (_, index) => ({
      filename: `part-${index}.txt`,
      contentType: 'text/plain',
      body: words(15 * 1024, `f${index}x`),
    })),
    { filename: 'huge.log', contentType: 'text/plain', body: Buffer.alloc(8 * 1024 * 1024, 'a') },
  ];
  const asked = await discord.userSays({
    channelId: discord.channels.general,
    author: 'ada',
    content: `${mentionOf(world)} review these`,
    mentions: [discord.botUser.id],
    attachments,
  });
  const thread = await discord.waitFor(() => discord.threads()[0]);

  await waitForBotPosts(world, thread.id, 1);
  const stored = storedContent(asked.id)!;
  for (let index = 0; index < 10; index++)
    expect(stored).toContain(
      `[Attachment part-${index}.txt]\n\`\`\`\n${attachments[index]!.body.toString().slice(0, 50)}`,
    );
  expect(stored).toContain(`[Attachment huge.log (text/plain, 8.0 MB): not read, larger than ${attachmentMaxKb} KB.]`);
  // Ten files of 15 KB are stored (about 150 KB), the 8 MB one is not.
  expect(stored.length).toBeGreaterThan(150_000);
  expect(stored.length).toBeLessThan(200_000);
  expect(model.requests[0]!.messages.at(-1)!.content!.endsWith(cutMark)).toBe(true);
});

it('reads no more than ATTACHMENT_MAX_KB of a file whose reported size is smaller than what is served', async () => {
  const { discord } = await start();
  const body = Buffer.alloc(4 * 1024 * 1024, 'b');
  const asked = await discord.userSays({
    channelId: discord.channels.general,
    author: 'ada',
    content: `${mentionOf(world)} read this`,
    mentions: [discord.botUser.id],
    attachments: [{ filename: 'liar.txt', contentType: 'text/plain', body, reportedSize: 100 }],
  });
  const thread = await discord.waitFor(() => discord.threads()[0]);

  await waitForBotPosts(world, thread.id, 1);
  const stored = storedContent(asked.id)!;
  expect(stored).toContain(`[Attachment liar.txt]\n\`\`\`\n${'b'.repeat(attachmentMaxKb * 1024)}\n\`\`\``);
  expect(stored.length).toBeLessThan(attachmentMaxKb * 1024 + 200);
});

it('takes a 4,000-character /ask prompt: shows what fits in a message, stores it whole, bounds what the model gets', async () => {
  const { discord, model } = await start();
  const prompt = words(4000, 'p');
  const interaction = await discord.userRunsCommand({
    name: 'ask',
    options: { prompt },
    author: 'ada',
    channelId: discord.channels.general,
  });
  await interaction.waitForReply();
  const thread = await discord.waitFor(() => discord.threads()[0]);

  const [shown, answer] = await waitForBotPosts(world, thread.id, 2);
  // As much as fits, cut at a word's end and marked as cut.
  expect(shown!.content.length).toBeGreaterThan(1990);
  expect(shown!.content.length).toBeLessThanOrEqual(2000);
  expect(shown!.content.endsWith('…')).toBe(true);
  expect(answer!.content).toBe('Read what I could.');
  expect(storedContent(shown!.id)).toBe(prompt);
  expect(model.requests[0]!.messages.at(-1)!.content!.endsWith(cutMark)).toBe(true);
});

it('answers a batch of twenty oversized messages, each cut to the cap', async () => {
  const { discord, model } = await start();
  model.enqueue({ ...finalAnswer('First.'), delayMs: 400 });
  await discord.userSays({
    channelId: discord.channels.general,
    author: 'ada',
    content: `${mentionOf(world)} start`,
    mentions: [discord.botUser.id],
  });
  const thread = await discord.waitFor(() => discord.threads()[0]);
  await discord.waitFor(() => model.requests.length === 1);
  for (let index = 0; index < 20; index++)
    await discord.userSays({
      channelId: thread.id,
      author: index % 2 ? 'ada' : 'bob',
      content: words(4000, `m${index}x`),
    });

  await waitForBotPosts(world, thread.id, 2);
  await world.bot.queues.idle();
  const batch = model.requests.at(-1)!;
  const cut = batch.messages.filter((message) => message.role === 'user' && message.content!.endsWith(cutMark));
  expect(cut).toHaveLength(20);
  const total = batch.messages.reduce((sum, message) => sum + counter.count(message.content ?? ''), 0);
  // Twenty messages of the cap, and the rest of the window: bounded by the batch size times the cap.
  expect(total).toBeLessThan(20 * (cap + 10) + 2000);
  expect(world.store.messages.count(world.store.conversations.byKey(`discord:${thread.id}`)!.id)).toBe(1 + 1 + 20 + 1);
});
