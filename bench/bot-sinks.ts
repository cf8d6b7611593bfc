/**
 * The bot's own event sinks, as src/discord/runs/run-in-discord.ts attaches them to a run, for the
 * agent-loop benches: the step log (runs and steps) and what the conversation remembers, written
 * to a real SQLite file with the production settings (WAL, synchronous=NORMAL), and the log lines
 * through the bot's pino logger (to /dev/null). Only the Discord posts are left out: they are
 * network calls, which the end-to-end bench measures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { openStore } from '../db/store.ts';
import { type AgentEventSink, fanOut } from '../src/agent/events.ts';
import { createLogger } from '../src/app/logging.ts';
import { conversationMemory } from '../src/memory/conversation-memory.ts';
import { loadTokenCounter } from '../src/memory/token-counter.ts';
import { logSink } from '../src/run-log/log-sink.ts';
import { startInstance } from '../src/run-log/instance.ts';

export interface BotSinks {
  /** A fresh set of sinks for one run (each run gets its own, as in the bot), fanned out into one. */
  forRun(extra: AgentEventSink): AgentEventSink;
  /** How many steps the step log holds (to check the sinks really wrote). */
  steps(): number;
  close(): void;
}

export async function openBotSinks(model: string): Promise<BotSinks> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-sinks-'));
  const store = openStore(join(folder, 'bot.sqlite'));
  const instance = startInstance(store, 'bench');
  const counter = await loadTokenCounter(model);
  const memory = conversationMemory(store, counter, { tokenBudget: 8000, messageTokenCap: 1500 });
  // The bot's logger at its default level (info: a line at each run's start and end), written
  // synchronously to /dev/null so that the formatting is paid but no terminal is.
  const logger = createLogger('info', pino.destination({ dest: '/dev/null', sync: true }));
  const conversation = store.conversations.ensure({
    key: 'discord:bench',
    title: 'bench',
    guildId: 'g',
    channelId: 'c',
    threadId: 't',
    startedById: 'u',
    startedByName: 'Ada',
  });
  const triggerId = memory.recordUserMessage(conversation, {
    authorId: 'u',
    authorName: 'Ada',
    content: 'What is (2+3) + (4*5)?',
    discordMessageId: null,
  })!;
  return {
    forRun(extra) {
      return fanOut(
        [
          extra,
          logSink(logger, { conversation: conversation.key, channelId: 't' }),
          memory.runSink(conversation.id, instance.id, { triggerIds: [triggerId] }, logger),
        ],
        logger,
      );
    },
    steps: () => (store.db.prepare('SELECT count(*) AS n FROM steps').get() as { n: number }).n,
    close() {
      instance.stop();
      store.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
