/** What the sharding tests share: a model that echoes, waiting for an answer, and which servers a database holds. */
import { openStore } from '../../db/store.ts';
import type { FakeDiscord } from './fake-discord.ts';
import { type ChatRequest, finalAnswer } from './fake-model.ts';

/** The model answers whatever it is asked with "answer to <the question>", in any order. */
export const echo = (request: ChatRequest) =>
  finalAnswer(`answer to ${String(request.messages.at(-1)?.content).replace(/^Ada: /, '')}`);

/** Resolves once the bot has posted `text` in the thread. */
export const answered = (discord: FakeDiscord, threadId: string, text: string) =>
  discord.waitFor(() => discord.botMessages(threadId).some((message) => message.content === text), {
    what: `"${text}" posted`,
    timeoutMs: 15_000,
  });

/** The servers whose conversations a shard's database holds. */
export function serversIn(path: string): string[] {
  const store = openStore(path, { readOnly: true });
  try {
    return store.db.prepare('SELECT DISTINCT guild_id FROM conversations ORDER BY guild_id').pluck().all() as string[];
  } finally {
    store.close();
  }
}
