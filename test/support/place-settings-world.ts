/**
 * What the per-place settings tests share: a bot world whose commands Ada (a moderator) and Bob (a
 * member) use, asking in channels and threads. `worldHolder.world` is the current test's world.
 */
import { type BotWorld, mentionOf, startBotWorld, waitForBotPosts } from './bot-harness.ts';
import type { FakeInteraction } from './fake-discord.ts';
import { type ChatRequest, finalAnswer, type ScriptedModel } from './fake-model.ts';

export const worldHolder: { world: BotWorld | undefined } = { world: undefined };
const current = () => worldHolder.world!;

export const moderatorRole = '100000000000000021';
/** Ada holds the Moderator role (Manage Messages); Bob is a member. Commands are shown to both. */
export async function start(
  extra: Parameters<typeof startBotWorld>[3] = {},
  client: Parameters<typeof startBotWorld>[2] = {},
  agent: Parameters<typeof startBotWorld>[1] = {},
): Promise<BotWorld> {
  worldHolder.world = await startBotWorld({ moderatorRoleIds: [moderatorRole] }, agent, client, extra);
  return worldHolder.world;
}

export const systemPrompt = (request: ChatRequest | undefined) => String(request?.messages[0]?.content ?? '');
export const offered = (request: ChatRequest | undefined) => (request?.tools ?? []).map((tool) => tool.function.name);

/** `author` mentions the bot in `channelId`; resolves with the thread once the bot has answered there. */
export async function ask(
  channelId: string,
  question: string,
  server: ScriptedModel = current().model,
  answer: string | null = 'Done.',
) {
  const { discord } = current();
  if (answer !== null) server.enqueue(finalAnswer(answer));
  const asked = await discord.userSays({
    channelId,
    author: 'ada',
    content: `${mentionOf(current())} ${question}`,
    mentions: [discord.botUser.id],
  });
  const thread = await discord.waitFor(() => discord.threads().find((candidate) => candidate.id === asked.id), {
    what: `the thread of "${question}"`,
  });
  await waitForBotPosts(current(), thread.id, 1);
  await current().bot.queues.idle();
  return thread;
}

/** Says something in a conversation's thread and waits for the answer. */
export async function sayIn(threadId: string, content: string, server: ScriptedModel = current().model) {
  const before = current().discord.botMessages(threadId).length;
  server.enqueue(finalAnswer('Ok.'));
  await current().discord.userSays({ channelId: threadId, author: 'ada', content });
  await waitForBotPosts(current(), threadId, before + 1);
  await current().bot.queues.idle();
}

export async function command(
  input: Omit<Parameters<BotWorld['discord']['userRunsCommand']>[0], 'author'> & { author?: 'ada' | 'bob' },
): Promise<{ interaction: FakeInteraction; content: string; ephemeral: boolean }> {
  const interaction = await current().discord.userRunsCommand({ author: 'ada', ...input });
  const reply = await interaction.waitForReply();
  return { interaction, content: reply.content, ephemeral: reply.ephemeral };
}

export const settings = (
  subcommand: string,
  channelId: string,
  options: Record<string, string | boolean> = {},
  author: 'ada' | 'bob' = 'ada',
) => command({ name: 'settings', subcommand, channelId, options, author });
