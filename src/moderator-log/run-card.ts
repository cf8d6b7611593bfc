/**
 * A run's card in the log channel, read from the step log when it is posted (the outbox keeps the
 * run's id only): who asked, where (a link to the answer), the question's first line, each tool
 * call with ✓/✗, the model, tokens, cost (when MODELS_FILE gives a price), duration and outcome.
 */
import type { Store } from '../../db/store.ts';
import type { RunRow } from '../../db/runs.ts';
import { costOf, formatCost } from '../model-catalog/cost.ts';
import type { ModelCatalog } from '../model-catalog/model-catalog.ts';
import { formatElapsed } from '../text/duration.ts';
import { truncateLine } from '../text/truncate.ts';
import type { LogCard } from './log-entry.ts';
import { formatCount } from '../text/count.ts';

/** The colours of outcomes: green, red, amber. */
export const cardColors = { good: 0x2e7d32, bad: 0xc62828, warn: 0xf9a825, info: 0x1565c0 } as const;

/** A link to a channel, thread or message, as Discord's clients open it. */
export const discordLink = (guildId: string, channelId: string, messageId?: string) =>
  `https://discord.com/channels/${guildId}/${channelId}${messageId ? `/${messageId}` : ''}`;

/** The run's card, or null when the run (or its conversation) is no longer on record. */
export function renderRunCard(
  store: Pick<Store, 'runs' | 'steps' | 'conversations' | 'messages'>,
  models: Pick<ModelCatalog, 'entry'>,
  runId: string,
): LogCard | null {
  const run = store.runs.byId(runId);
  const conversation = run ? store.conversations.byId(run.conversation_id) : undefined;
  if (!run || !conversation?.guild_id) return null;
  const triggers = JSON.parse(run.trigger_message_ids) as number[];
  const question = triggers.map((id) => store.messages.byId(id)).find((message) => message !== undefined);
  const where = conversation.thread_id ?? conversation.channel_id;
  const answerId = answerMessageOf(run);
  const tools = store.steps
    .ofRun(run.id)
    .filter((step) => step.kind === 'tool-call' && step.tool_name)
    .map((step) => `${step.status === 'ok' ? '✓' : '✗'} ${step.tool_name}`);
  const outcome = outcomeOf(run);
  const asker = question?.author_id ? `<@${question.author_id}>` : 'someone';
  const firstLine = question ? truncateLine(question.content.split('\n')[0] ?? '', 150) : '';
  const description = [
    firstLine ? `> ${firstLine}` : null,
    `${asker}${where ? ` in <#${where}>` : ''}${where && answerId ? ` · [answer](${discordLink(conversation.guild_id, where, answerId)})` : ''}`,
    outcome.detail ? truncateLine(outcome.detail, 200) : null,
  ].filter((line) => line !== null);
  const cost = costOf(
    models.entry(run.model_name ?? '')?.price ?? null,
    run.prompt_tokens,
    run.completion_tokens,
    run.cached_tokens,
  );
  const facts = [
    run.model_name ?? run.model,
    `${formatCount(run.total_tokens)} tokens${run.cached_tokens > 0 ? ` (${formatCount(run.cached_tokens)} cached)` : ''}`,
    ...(cost === null ? [] : [formatCost(cost)]),
    ...(run.ended_at === null ? [] : [formatElapsed(run.ended_at - run.started_at)]),
    `run ${run.id.slice(0, 8)}`,
  ];
  return {
    title: truncateLine(`${outcome.title} · ${question?.author_name ?? 'unknown'}`, 100),
    description: description.join('\n'),
    color: outcome.color,
    ...(tools.length > 0 ? { fields: [{ name: 'Tools', value: truncateLine(tools.join(' · '), 200) }] } : {}),
    footer: { text: facts.join(' · ') },
    timestamp: new Date(run.ended_at ?? run.started_at).toISOString(),
    stepsOf: run.id,
  };
}

/** The message to link to: the first showing the answer as it was written, else the last posted (the answer's). */
function answerMessageOf(run: RunRow): string | undefined {
  const live = JSON.parse(run.live_message_ids) as string[];
  const posted = JSON.parse(run.posted_message_ids) as string[];
  return live[0] ?? posted.at(-1);
}

/** How a run ended, in a title, a colour and (when it did not answer) why. */
function outcomeOf(run: RunRow): { title: string; color: number; detail: string | null } {
  if (run.delivery === 'given-up')
    return { title: '❌ Given up', color: cardColors.bad, detail: 'cut off again and again by restarts' };
  if (run.error_code === 'call-refused')
    return { title: '⛔ Refused', color: cardColors.warn, detail: run.error ?? 'refused before any model call' };
  const unposted = run.delivery === 'post-failed' ? 'the answer could not be posted' : null;
  switch (run.status) {
    case 'answered':
      return { title: '✅ Answered', color: unposted ? cardColors.warn : cardColors.good, detail: unposted };
    case 'stopped':
      return {
        title: '⏹️ Stopped',
        color: cardColors.warn,
        detail: run.stop_reason === 'aborted' ? 'stopped by /stop' : `stopped: ${run.stop_reason ?? 'a limit'}`,
      };
    case 'failed':
      return { title: '❌ Failed', color: cardColors.bad, detail: run.error ?? run.error_code ?? 'unknown cause' };
    default:
      return { title: `⚠️ ${run.status}`, color: cardColors.warn, detail: run.error };
  }
}
