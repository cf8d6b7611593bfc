/**
 * `npm run bench:prefix`: how much of a follow-up's prompt a model server has read before. A
 * 40-message thread goes through the bot (the real discord.js client, the fake Discord, the
 * scripted model), with the default window and with one that overflows (MEMORY_TOKEN_BUDGET=600,
 * summaries off). For each follow-up, its first request is set against the last request of the
 * answer before it (the one a server read last): the tokens it begins with unchanged (what
 * llama.cpp, vLLM and Ollama reuse from their cache, and what OpenAI bills as cached), and the
 * tokens a server must process anew. BENCH_SMOKE=1: a few messages only.
 *
 * A request is counted as the server reads it: the tools' JSON, then each message (its role, its
 * text, its calls), in order; tokens by the bot's own counter (o200k, gpt-4.1-mini's).
 */
import { startBotWorld } from '../test/support/bot-harness.ts';
import { type ChatRequest, finalAnswer, type ScriptedReply, toolCalls } from '../test/support/fake-model.ts';
import { loadTokenCounter } from '../src/memory/token-counter.ts';
import { openFirstThread } from './first-thread.ts';
import { quantile } from './statistics.ts';

const smoke = process.env.BENCH_SMOKE === '1';
const messages = smoke ? 6 : 40;
const counter = await loadTokenCounter('gpt-4.1-mini');

/** The prompt as text, in the order a chat template lays it out: tools, then the messages. */
function promptText(request: ChatRequest): string {
  const parts = [JSON.stringify(request.tools ?? [])];
  for (const message of request.messages) {
    const {
      role,
      content,
      tool_calls: calls,
      tool_call_id: callId,
    } = message as {
      role: string;
      content?: unknown;
      tool_calls?: unknown;
      tool_call_id?: string;
    };
    const text = typeof content === 'string' ? content : JSON.stringify(content ?? '');
    parts.push(`<${role}>${text}${calls ? JSON.stringify(calls) : ''}${callId ?? ''}</>`);
  }
  return parts.join('\n');
}

function commonPrefixLength(a: string, b: string): number {
  let index = 0;
  while (index < a.length && index < b.length && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}

const isSummaryCall = (request: ChatRequest) => JSON.stringify(request.tool_choice ?? null).includes('write_summary');

/**
 * The model: answers of a few lengths; every fourth follow-up calls the calculator first, as a real
 * thread does; a summary call (summaries on) gets a summary that grows with what it folds in.
 */
function reply(request: ChatRequest): ScriptedReply {
  const last = request.messages.at(-1)!;
  if (isSummaryCall(request))
    return toolCalls({
      name: 'write_summary',
      arguments: { summary: `Ada and Bob asked ${String(last.content).length} characters' worth of questions.` },
    });
  const asked = request.messages.findLast((message) => message.role === 'user');
  const index = Number(/Question (\d+)/.exec(String(asked?.content ?? ''))?.[1] ?? 0);
  if (index % 4 === 3 && last.role === 'user')
    return toolCalls({ name: 'calculator', arguments: { expression: `${index}*${index + 7}` } });
  return finalAnswer(
    `Answer ${index}: ${'Here is what I found about that, in a sentence or two that a person would read. '.repeat(1 + (index % 4))}`,
  );
}

interface FollowUp {
  previousTokens: number;
  tokens: number;
  reused: number;
}

async function thread(memory: { tokenBudget: number; summaries: boolean } | undefined): Promise<FollowUp[]> {
  const world = await startBotWorld({}, {}, {}, memory ? { memory } : {});
  try {
    const first = await openFirstThread(world);
    world.model.otherwise(reply);
    const answerCalls = () => world.model.requests.filter((request) => !isSummaryCall(request));
    const followUps: FollowUp[] = [];
    for (let index = 1; index < messages; index++) {
      const before = answerCalls().length;
      const said = await world.discord.userSays({
        channelId: first.id,
        author: index % 3 === 0 ? 'bob' : 'ada',
        content: `Question ${index}: ${'could you tell me a bit more about the thing we talked about earlier? '.repeat(1 + (index % 3))}`,
      });
      await world.handled('message', said.id);
      const previous = answerCalls()[before - 1]!;
      const next = answerCalls()[before]!;
      const [previousText, nextText] = [promptText(previous), promptText(next)];
      followUps.push({
        previousTokens: counter.count(previousText),
        tokens: counter.count(nextText),
        reused: counter.count(nextText.slice(0, commonPrefixLength(previousText, nextText))),
      });
    }
    return followUps;
  } finally {
    await world.close();
  }
}

const percent = (share: number) => `${(share * 100).toFixed(0)} %`;

function report(name: string, followUps: readonly FollowUp[]): void {
  const shares = followUps.map((followUp) => Math.min(1, followUp.reused / followUp.previousTokens));
  const anew = followUps.map((followUp) => followUp.tokens - followUp.reused);
  const reused = followUps.map((followUp) => followUp.reused);
  const sent = followUps.map((followUp) => followUp.tokens);
  console.log(`\n${name} (${followUps.length} follow-ups)`);
  console.log(
    `  share of the previous request a follow-up begins with: median ${percent(quantile(shares, 0.5))}, p10 ${percent(quantile(shares, 0.1))}`,
  );
  console.log(
    `  follow-ups that reuse ≥ 90 % of the previous request: ${percent(shares.filter((share) => share >= 0.9).length / shares.length)}`,
  );
  console.log(
    `  tokens sent per follow-up: median ${quantile(sent, 0.5)}, p90 ${quantile(sent, 0.9)}; re-sent unchanged: median ${quantile(reused, 0.5)}, p90 ${quantile(reused, 0.9)}`,
  );
  console.log(`  per follow-up, share reused: ${shares.map((share) => Math.round(share * 100)).join(' ')}`);
  console.log(
    `  tokens to process anew per follow-up: median ${quantile(anew, 0.5)}, p90 ${quantile(anew, 0.9)}, total ${anew.reduce((sum, value) => sum + value, 0)}`,
  );
}

console.log(`Node ${process.version}; a thread of ${messages} messages through the bot, against the scripted model.`);
report('Default window (8,000 tokens, summaries on)', await thread(undefined));
report('A window that overflows (600 tokens, summaries off)', await thread({ tokenBudget: 600, summaries: false }));
report('A window that overflows, with summaries (600 tokens)', await thread({ tokenBudget: 600, summaries: true }));
