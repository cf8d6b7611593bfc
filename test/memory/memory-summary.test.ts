/**
 * How often and how much a conversation's summary calls fold in (src/memory/memory-summary.ts), on
 * a real database with a stand-in model: once a window has fallen out, a call comes every half
 * window of new turns, not at every message; a rebuild goes in chunks no bigger than the window; a
 * tool call and its result are folded in together; new work stops a rebuild between two calls.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/agent/logger.ts';
import type { ModelClient, ModelRequest } from '../../src/agent/model-client.ts';
import { conversationMemory } from '../../src/memory/conversation-memory.ts';
import { loadTokenCounter } from '../../src/memory/token-counter.ts';
import { startInstance } from '../../src/run-log/instance.ts';
import { tempStore } from '../support/temp-store.ts';

const counter = await loadTokenCounter('gpt-4.1-mini');
const budget = 1000;

function world() {
  const { store } = tempStore();
  const memory = conversationMemory(store, counter, { tokenBudget: budget, messageTokenCap: 400 });
  const instance = startInstance(store, 'test');
  const conversation = store.conversations.ensure({
    key: 'terminal:t',
    title: 't',
    guildId: null,
    channelId: null,
    startedById: 'u',
    startedByName: 'Ada',
  });
  const requests: ModelRequest[] = [];
  const model: ModelClient = {
    model: 'stand-in',
    async complete(request) {
      requests.push(request);
      const summary = `summary ${requests.length}`;
      return {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c', type: 'function', function: { name: 'write_summary', arguments: JSON.stringify({ summary }) } },
          ],
        },
        usage: { promptTokens: 10, completionTokens: 3, totalTokens: 13 },
        finishReason: 'tool_calls',
        model: 'stand-in',
      };
    },
  };
  const say = (index: number) => {
    const id = memory.recordUserMessage(conversation, {
      authorId: 'u',
      authorName: 'Ada',
      content: `message ${index} about the release plan and the failing tests`,
      discordMessageId: `d${index}`,
    })!;
    const base = {
      conversationId: conversation.id,
      runId: null,
      authorId: null,
      authorName: null,
      discordMessageId: null,
    };
    const head = store.messages.insertGroupHead({
      ...base,
      role: 'assistant',
      content: '',
      toolCalls: JSON.stringify([
        { id: `c${index}`, type: 'function', function: { name: 'calculator', arguments: '{}' } },
      ]),
      toolCallId: null,
      answersId: id,
      tokenCount: 20,
    });
    store.messages.insert({
      ...base,
      role: 'tool',
      content: `result ${index}`,
      toolCalls: null,
      toolCallId: `c${index}`,
      groupId: head,
      answersId: id,
      tokenCount: 5,
    });
  };
  const summarise = (newWork?: AbortSignal) =>
    memory.summarise({
      conversationId: conversation.id,
      model,
      modelName: 'stand-in',
      shutdown: new AbortController().signal,
      newWork,
      instanceId: instance.id,
      logger: silentLogger,
    });
  return { store, conversation, requests, say, summarise };
}

describe('summary calls', () => {
  it('come once a window has fallen out, then every half window of new turns, never splitting a tool call from its result', async () => {
    const { store, conversation, requests, say, summarise } = world();
    const callsAt: number[] = [];
    for (let index = 1; index <= 120; index++) {
      say(index);
      const before = requests.length;
      await summarise();
      if (requests.length > before) callsAt.push(index);
    }
    // About 40 tokens an exchange: a window holds ~25 exchanges; a call folds down to half of one
    // (less the summary's room), ~9, so the next comes ~16 exchanges later: 6 calls in 120, not 95.
    expect(callsAt[0]).toBeGreaterThan(20);
    expect(callsAt.length).toBeGreaterThanOrEqual(5);
    expect(callsAt.length).toBeLessThanOrEqual(8);
    for (const [index, at] of callsAt.slice(1).entries()) expect(at - callsAt[index]!).toBeGreaterThan(10);
    const summary = store.summaries.of(conversation.id)!;
    const covered = [...store.messages.iterateNewest(conversation.id, 0)].filter(
      (row) => (row.answers_id ?? row.id) <= summary.last_message_id,
    );
    // Every call folded whole exchanges in: each tool call with its result.
    for (const request of requests) {
      const transcript = request.messages.at(-1)!.content as string;
      expect(transcript.match(/called calculator/g)?.length).toBe(transcript.match(/\(tool result\)/g)?.length);
    }
    expect(covered.filter((row) => row.role === 'tool')).toHaveLength(
      covered.filter((row) => row.role === 'user').length,
    );
  });

  it('rebuild a stale summary in chunks no bigger than the window, and stop between two calls when new work arrives', async () => {
    const { store, requests, say, summarise } = world();
    for (let index = 1; index <= 120; index++) say(index);
    await summarise();
    expect(requests.length).toBeGreaterThanOrEqual(3);
    for (const request of requests)
      expect(counter.count(request.messages.at(-1)!.content as string)).toBeLessThan(budget + 200);
    store.messages.editByDiscordId('d1', 'message 1, edited', 8);
    const before = requests.length;
    const newWork = new AbortController();
    const going = summarise(newWork.signal);
    newWork.abort();
    await going;
    expect(requests.length).toBe(before + 1);
  });
});
