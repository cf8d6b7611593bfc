/**
 * The running summary of what a conversation's memory window no longer holds. Comes from: the
 * conversation's queue once it has nothing left to answer (the bot, src/conversation/
 * conversation-queues.ts `afterDrain`) and the terminal chat after each answer: never on an
 * answer's path. Does: find the turns that fell out of the window and are not summed up yet, and
 * fold them, oldest first, into the summary with the place's model (summary-request.ts), a bounded
 * chunk per call. Goes to: the database (db/memory-summaries.ts), the summary with its run, which
 * the next window opens with (conversation-memory.ts).
 *
 * It folds down to half the window at each go, so a call is made every half window of new turns,
 * not at every message. It stops between calls when new work waits for the conversation, so an
 * answer waits for one summary call at most. A call that fails is recorded and logged; the window
 * works as without a summary and the next go tries again.
 */
import { randomUUID } from 'node:crypto';
import type { MessageRow } from '../../db/messages.ts';
import type { Store } from '../../db/store.ts';
import type { SummaryRow } from '../../db/memory-summaries.ts';
import { describeError } from '../agent/errors.ts';
import type { Logger } from '../agent/logger.ts';
import { ModelError } from '../agent/model-error.ts';
import type { ModelClient } from '../agent/model-client.ts';
import type { TokenCounter } from './token-counter.ts';
import { conversationOrder, selectWindow } from './window.ts';
import { summaryLead, summaryOfReply, summaryRequest } from './summary-request.ts';

/** What summing up uses: the database, token counting, the window's settings, the process and its log. */
export interface SummaryParts {
  store: Store;
  counter: TokenCounter;
  settings: { messageTokenCap: number; summaries?: boolean };
  instanceId: string;
  logger: Logger;
}

/** One go at a conversation's summary, with what applies in its place now. */
export interface SummaryJob {
  conversationId: number;
  /** The place's model (a client whose calls take their turn as a run's do) and its name. */
  model: ModelClient & { turn?(signal: AbortSignal): Promise<{ client: ModelClient; release(): void }> };
  modelName: string;
  /** The place's window budget (PlaceChoice.window.budget). */
  budget: number;
  /** Fires at shutdown: the go stops. */
  shutdown: AbortSignal;
  /** Fires when new work arrives for the conversation: no further call is started. */
  newWork?: AbortSignal;
}

/** The window always holds at least this many of the newest messages (as conversation-memory.ts). */
const memoryFloor = 3;
/** The smallest window a summary is made for. */
const minimumBudget = 200;
/** Rows read for one call at the most. */
const maxChunkRows = 500;

/** The most tokens a summary may take: a quarter of the window, and never more than 1,000. */
function summaryTokenCap(budget: number): number {
  return Math.min(1000, Math.floor(budget / 4));
}

/** The summary as the window opens with it, and its cost in the window's tokens. */
export function summaryText(summary: string): string {
  return `${summaryLead}${summary}`;
}

/** Sums up what fell out of the conversation's window, if anything did; see the file's comment. */
export async function summariseFallenOut(parts: SummaryParts, job: SummaryJob): Promise<void> {
  // A window under 200 tokens (a model of a small context: MEMORY_TOKEN_BUDGET is 200 at least)
  // has no room for a summary worth its call.
  if (parts.settings.summaries === false || job.budget < minimumBudget) return;
  const conversation = parts.store.conversations.byId(job.conversationId);
  if (!conversation) return;
  const memoryStartsAfter = conversation.memory_starts_after;
  const stored = parts.store.summaries.of(job.conversationId);
  let current: SummaryRow | null = stored && stored.stale === 0 ? stored : null;
  const cutOrder = foldThrough(parts, job, memoryStartsAfter, current);
  if (cutOrder === null) return;
  let through = current?.last_message_id ?? memoryStartsAfter;
  while (through < cutOrder && !job.shutdown.aborted && !job.newWork?.aborted) {
    const chunk = nextChunk(parts, job, through, cutOrder);
    if (chunk.length === 0) return;
    const written = await fold(parts, job, { current, chunk, memoryStartsAfter, from: through });
    if (!written) return;
    current = written;
    through = written.last_message_id;
  }
}

/**
 * The conversation order up to which turns are folded in now: null when nothing fell out of the
 * window yet; else the end of what falls out of half the window (so that the next call waits for
 * half a window of new turns).
 */
function foldThrough(
  parts: SummaryParts,
  job: SummaryJob,
  memoryStartsAfter: number,
  current: SummaryRow | null,
): number | null {
  const after = current?.last_message_id ?? memoryStartsAfter;
  const kept = (budget: number) =>
    selectWindow(filtered(parts.store.messages.iterateNewest(job.conversationId, memoryStartsAfter), after), {
      budget,
      messageCap: parts.settings.messageTokenCap,
      floor: memoryFloor,
      pinned: new Set(),
    });
  const now = kept(Math.max(0, job.budget - (current?.tokens ?? 0)));
  const oldestKept = now[0];
  if (!oldestKept) return null;
  const fellOut = parts.store.summaries.inOrder(job.conversationId, after, conversationOrder(oldestKept) - 1, 1);
  if (fellOut.length === 0) return null;
  // Half a window holds fewer, newer turns: its start is at or after the whole window's.
  const half = kept(Math.floor((job.budget - summaryTokenCap(job.budget)) / 2))[0] ?? oldestKept;
  return Math.max(conversationOrder(half), conversationOrder(oldestKept)) - 1;
}

/** The rows after `after` in conversation order, up to `cutOrder`, within one call's budget, whole groups of one order only. */
function nextChunk(parts: SummaryParts, job: SummaryJob, after: number, cutOrder: number): MessageRow[] {
  const rows = parts.store.summaries.inOrder(job.conversationId, after, cutOrder, maxChunkRows);
  const chunk: MessageRow[] = [];
  let tokens = 0;
  for (let start = 0; start < rows.length;) {
    const order = conversationOrder(rows[start]!);
    let end = start;
    while (end < rows.length && conversationOrder(rows[end]!) === order) end += 1;
    // A group cut by the row limit waits for the next call, unless it is all this call has.
    if (end === rows.length && rows.length === maxChunkRows && chunk.length > 0) break;
    const group = rows.slice(start, end);
    const cost = group.reduce((sum, row) => sum + Math.min(row.token_count, parts.settings.messageTokenCap), 0);
    if (chunk.length > 0 && tokens + cost > job.budget) break;
    chunk.push(...group);
    tokens += cost;
    start = end;
  }
  return chunk;
}

/** What one call folds in: the summary so far, the rows after it, and the memory start it was read with. */
interface Fold {
  current: SummaryRow | null;
  chunk: readonly MessageRow[];
  memoryStartsAfter: number;
  from: number;
}

/** One summary call: the new summary stored with its run, or null (failed, or the conversation changed meanwhile). */
async function fold(parts: SummaryParts, job: SummaryJob, step: Fold): Promise<SummaryRow | null> {
  const cap = summaryTokenCap(job.budget);
  const request = summaryRequest(step.current?.summary ?? null, step.chunk, parts.counter, Math.floor(cap * 0.7));
  const last = conversationOrder(step.chunk.at(-1)!);
  const run = {
    id: randomUUID(),
    conversationId: job.conversationId,
    instanceId: parts.instanceId,
    summarisedIds: step.chunk.filter((row) => row.role === 'user').map((row) => row.id),
    model: job.model.model,
    modelName: job.modelName,
    startedAt: Date.now(),
    note: `summary of messages ${step.from + 1}–${last}`,
  };
  const log = { runId: run.id, conversationId: job.conversationId };
  let turn: { client: ModelClient; release(): void } | null = null;
  try {
    turn = job.model.turn
      ? await job.model.turn(AbortSignal.any([job.shutdown, ...(job.newWork ? [job.newWork] : [])]))
      : null;
    const response = await (turn?.client ?? job.model).complete(request, job.shutdown);
    const usage = {
      promptTokens: response.usage?.promptTokens ?? 0,
      completionTokens: response.usage?.completionTokens ?? 0,
    };
    const written = summaryOfReply(response);
    const summary = written === null ? null : parts.counter.truncate(written, cap);
    const stored = parts.store.summaries.record(
      {
        ...run,
        ...usage,
        summary,
        error: summary === null ? 'the model wrote no summary' : null,
        errorCode: summary === null ? 'no-summary' : null,
      },
      summary === null
        ? null
        : {
            conversationId: job.conversationId,
            summary,
            firstMessageId: step.current?.first_message_id ?? conversationOrder(step.chunk[0]!),
            lastMessageId: last,
            tokens: parts.counter.count(summaryText(summary)),
            replaces: step.current,
            memoryStartsAfter: step.memoryStartsAfter,
            read: step.chunk.map(({ id, content }) => ({ id, content })),
          },
    );
    if (summary === null) parts.logger.warn(log, 'summary call: the model wrote no summary');
    return stored ? (parts.store.summaries.of(job.conversationId) ?? null) : null;
  } catch (error) {
    // Stopped by the shutdown or by new work before it was sent: nothing spent, nothing to record.
    if (job.shutdown.aborted || (turn === null && job.newWork?.aborted)) return null;
    parts.store.summaries.record(
      {
        ...run,
        promptTokens: 0,
        completionTokens: 0,
        summary: null,
        error: describeError(error),
        errorCode: error instanceof ModelError ? error.code : 'internal',
      },
      null,
    );
    parts.logger.warn({ ...log, err: error }, 'summary call failed: the window drops old turns until the next try');
    return null;
  } finally {
    turn?.release();
  }
}

/** Rows whose conversation order is past `after`. */
function* filtered(rows: Iterable<MessageRow>, after: number): Generator<MessageRow> {
  for (const row of rows) if (conversationOrder(row) > after) yield row;
}
