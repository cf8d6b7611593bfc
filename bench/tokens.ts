/**
 * `npm run bench:tokens`: the prompt a model call carries as one thread grows to 500 messages.
 * It should level off at the memory budget (plus the system prompt and tool specs), not grow.
 * The model here is an in-process stand-in that answers at once and counts what it was sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../db/store.ts';
import { silentLogger } from '../src/agent/logger.ts';
import type { ModelClient } from '../src/agent/model-client.ts';
import { defaultAgentSettings, runAgent } from '../src/agent/run-agent.ts';
import { buildSystemPrompt } from '../src/agent/system-prompt.ts';
import { buildToolRegistry } from '../src/agent/tool-registry.ts';
import { conversationMemory } from '../src/memory/conversation-memory.ts';
import { loadTokenCounter } from '../src/memory/token-counter.ts';
import { startInstance } from '../src/run-log/instance.ts';
import { builtInTools } from '../tools/index.ts';
import { sized } from './smoke.ts';

const budget = 8000;
const counter = await loadTokenCounter('gpt-4.1-mini');
const folder = mkdtempSync(join(tmpdir(), 'bench-tokens-'));
const store = openStore(join(folder, 'bot.sqlite'));
const memory = conversationMemory(store, counter, { tokenBudget: budget, messageTokenCap: 4000 });
const instance = startInstance(store, 'bench');
const conversation = store.conversations.ensure({
  key: 'terminal:tokens',
  title: 'tokens',
  guildId: null,
  channelId: null,
  startedById: 'u',
  startedByName: 'Ada',
});
const tools = buildToolRegistry(builtInTools);
const sentence = 'Here is another question about the release plan, the failing tests and who reviews what this week';

let lastPromptTokens = 0;
const model: ModelClient = {
  model: 'stand-in',
  async complete(request) {
    lastPromptTokens = request.messages.reduce(
      (sum, message) =>
        sum +
        counter.count(typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '')) +
        counter.count(JSON.stringify('tool_calls' in message ? (message.tool_calls ?? '') : '')),
      0,
    );
    const content = `Answer: ${sentence}.`;
    return {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `c${Math.random()}`,
            type: 'function',
            function: { name: 'final_answer', arguments: JSON.stringify({ answer: content, tools_used: [] }) },
          },
        ],
      },
      usage: null,
      finishReason: 'tool_calls',
      model: 'stand-in',
    };
  },
};

console.log(`Memory budget ${budget} tokens; each exchange is a user message and an answer (2 stored messages).\n`);
console.log('| messages in the thread | prompt tokens of the next call | messages sent |');
console.log('|--:|--:|--:|');
for (let exchange = 1; exchange <= sized(250, 10); exchange++) {
  const triggerIds = [
    memory.recordUserMessage(conversation, {
      authorId: 'u',
      authorName: 'Ada',
      content: `${exchange}: ${sentence}?`,
      discordMessageId: null,
    })!,
  ];
  const { history, input } = memory.loadWindow(conversation.id, triggerIds);
  await runAgent({
    model,
    systemPrompt: buildSystemPrompt({
      operatorPrompt: null,
      now: new Date(),
      place: { kind: 'terminal', conversation: 'tokens' },
      participants: ['Ada'],
    }),
    history,
    input,
    tools,
    context: {
      conversationId: conversation.key,
      guildId: null,
      channelId: null,
      requester: { id: 'u', displayName: 'Ada', isModerator: false },
      logger: silentLogger,
    },
    settings: defaultAgentSettings,
    onEvent: memory.runSink(conversation.id, instance.id, { triggerIds }, silentLogger),
  });
  const stored = exchange * 2 - 1;
  if (stored === 1 || [50, 100, 200, 300, 400, 500].includes(stored + 1))
    console.log(`| ${stored} | ${lastPromptTokens} | ${history.length + input.length + 1} |`);
}
instance.stop();
store.close();
rmSync(folder, { recursive: true, force: true });
