import type { ConversationRow } from '../../db/conversations.ts';
import type { NewImage } from '../../db/images.ts';
import type { SummaryRow } from '../../db/memory-summaries.ts';
import type { MessageRow } from '../../db/messages.ts';
import type { Store } from '../../db/store.ts';
import type { ImageTokenRule } from '../images/image-tokens.ts';
import { type AgentEvent, type AgentEventSink, fanOut } from '../agent/events.ts';
import type { Logger } from '../agent/logger.ts';
import type { ChatMessage, UserMessage } from '../agent/messages.ts';
import { stepLogSink } from '../run-log/step-log-sink.ts';
import { writeBehind } from '../run-log/write-behind.ts';
import { memorySink } from './memory-sink.ts';
import { type SummaryJob, summariseFallenOut, summaryText } from './memory-summary.ts';
import type { TokenCounter } from './token-counter.ts';
import { conversationOrder, formatUserContent, toChatMessages } from './window.ts';
import { selectSteppedWindow } from './window-start.ts';
import { windowImages } from './window-images.ts';

export interface MemorySettings {
  tokenBudget: number;
  messageTokenCap: number;
  /** Images the window shows at most (MEMORY_IMAGES; 4 unless given). */
  images?: number;
  /** How the model counts an image's tokens; absent when it cannot see images (none is shown). */
  imageTokens?: ImageTokenRule;
  /** Whether turns that fall out of the window are summed up into a running summary (MEMORY_SUMMARY; on unless false). */
  summaries?: boolean;
}

/** The window shows this many images unless MEMORY_IMAGES says otherwise. */
const defaultMemoryImages = 4;

/** What a run's record needs besides its conversation. */
export interface RunRecordOptions {
  /** The stored messages the run answers. */
  triggerIds?: readonly number[];
  /** The interrupted run this one resumes. */
  resumedFrom?: string | null;
  /** The message the run's rows follow in memory: the newest trigger unless given. */
  answersId?: number | null;
  /** False to keep the run in the step log only, out of the conversation's memory. */
  remember?: boolean;
}

/** The window always holds at least this many of the newest messages. */
const memoryFloor = 3;

export interface IncomingMessage {
  authorId: string;
  authorName: string;
  content: string;
  discordMessageId: string | null;
  /** Images posted with it (only when the model can see them). */
  images?: readonly NewImage[];
  /** A schedule's prompt (MessageRow.scheduled). */
  scheduled?: boolean;
}

/** A run's window: its history, the messages it answers, and who spoke in it. */
export interface LoadedWindow {
  history: ChatMessage[];
  input: UserMessage[];
  /**
   * The names of the people who spoke in the window, in the order they first did: the people the
   * system message names, which so change only when someone new speaks or the window's start moves.
   */
  speakers: string[];
}

/** How a run's window is loaded; see `loadWindow`. */
interface WindowOptions {
  budget?: number;
  resuming?: boolean;
  imageTokens?: ImageTokenRule | null;
}

/**
 * A conversation's memory in SQLite: storing what people say, loading the window for a run, and
 * the sinks that write the run's steps and what it leaves in memory.
 */
export function conversationMemory(store: Store, counter: TokenCounter, settings: MemorySettings) {
  const memory: MemoryParts = { store, counter, settings };
  return {
    /**
     * Resolves once the memory can count tokens: with a deferred counter (the bot's), its encoding
     * loads at the first call, not at the start. What stores a message, runs, or runs a tool
     * directly waits for it first.
     */
    ready: (): Promise<void> => counter.load(),

    /**
     * Stores a user message before any run sees it, so that nothing said is lost. Null when that
     * Discord message is already stored (the gateway can deliver an event twice).
     */
    recordUserMessage: store.db.transaction((conversation: ConversationRow, message: IncomingMessage): number | null =>
      storeUserMessage(memory, conversation, message),
    ),

    /**
     * The history and the input of a run that answers the messages `triggerIds`. `budget`
     * overrides the token budget (a smaller window after "context too long"); `resuming` puts the
     * answered messages in the history, after which an interrupted run's own steps follow.
     */
    loadWindow: (conversationId: number, triggerIds: readonly number[], options: WindowOptions = {}): LoadedWindow =>
      loadWindow(memory, conversationId, triggerIds, options),

    /**
     * The sink that records a run: its step log, and what the conversation remembers of it. Both
     * write each event in the same transaction, so that a crash never leaves a call finished in the
     * step log but unanswered in memory (a resumed run would read it as interrupted and may call it
     * again); some events wait to share a transaction with the next (run-log/write-behind.ts). A
     * failure of one is logged after the other has written.
     */
    runSink: (conversationId: number, instanceId: string, run: RunRecordOptions, logger: Logger): AgentEventSink =>
      runRecordSink(memory, conversationId, instanceId, run, logger),

    /**
     * Sums up the turns that fell out of the conversation's window into its running summary, if
     * summaries are on and any did (memory-summary.ts). After an answer, never on its path.
     */
    summarise: (job: Omit<SummaryJob, 'budget'> & { budget?: number; instanceId: string; logger: Logger }) =>
      summariseFallenOut(
        { store, counter, settings, instanceId: job.instanceId, logger: job.logger },
        { ...job, budget: job.budget ?? settings.tokenBudget },
      ),
  };
}

/** What the memory works with: the database, how tokens are counted, and the window's settings. */
interface MemoryParts {
  store: Store;
  counter: TokenCounter;
  settings: MemorySettings;
}

function storeUserMessage(
  { store, counter }: MemoryParts,
  conversation: ConversationRow,
  message: IncomingMessage,
): number | null {
  const id = store.messages.insert({
    conversationId: conversation.id,
    runId: null,
    role: 'user',
    authorId: message.authorId,
    authorName: message.authorName,
    content: message.content,
    toolCalls: null,
    toolCallId: null,
    groupId: null,
    answersId: null,
    discordMessageId: message.discordMessageId,
    tokenCount: counter.count(formatUserContent(message.authorName, message.content)),
    ...(message.scheduled ? { scheduled: true } : {}),
  });
  if (id !== null && message.images?.length) store.images.add(id, message.images);
  return id;
}

function loadWindow(
  { store, counter, settings }: MemoryParts,
  conversationId: number,
  triggerIds: readonly number[],
  options: WindowOptions,
): LoadedWindow {
  const conversation = store.conversations.byId(conversationId);
  const pinned = new Set(triggerIds);
  const afterId = conversation?.memory_starts_after ?? 0;
  // What came after the messages answered (later messages, later runs' steps) is not this run's history.
  const newest = triggerIds.length > 0 ? Math.max(...triggerIds) : Infinity;
  const summary = usableSummary(store, settings, conversationId);
  const coveredThrough = summary?.last_message_id ?? 0;
  // Left out before the window is chosen: they would take image quota and tokens from it (a
  // resumed run, or the retry after "context too long", reads later messages too); and what the
  // summary covers is said by the summary.
  const inWindow = (row: MessageRow) => conversationOrder(row) <= newest && conversationOrder(row) > coveredThrough;
  const images = windowImages(
    store.images,
    { conversationId, afterId },
    // The run's model's rule; null: it sees no images (named only).
    {
      keep: settings.images ?? defaultMemoryImages,
      tokens: options.imageTokens === undefined ? settings.imageTokens : (options.imageTokens ?? undefined),
    },
  );
  // Every row with an id up to the summary's end is covered by it (a run's rows come after the
  // message they answer): not read. So is every row before the window's start (of a smaller order).
  const rowsFrom = (order: number) =>
    filtered(
      store.messages.iterateNewest(conversationId, Math.max(afterId, coveredThrough, order - 1)),
      (row) => inWindow(row) && conversationOrder(row) >= order,
    );
  const budget = Math.max(0, (options.budget ?? settings.tokenBudget) - (summary?.tokens ?? 0));
  // Asked once per row: the images' quota is counted as rows are read, and a step reads them twice.
  const imageCosts = new Map<number, number>();
  const extraCost = (row: MessageRow) =>
    imageCosts.get(row.id) ?? imageCosts.set(row.id, images.cost(row)).get(row.id)!;
  // The start moves in steps, not with every message (window-start.ts).
  const { rows, movedTo } = selectSteppedWindow(
    rowsFrom,
    { budget, messageCap: settings.messageTokenCap, floor: memoryFloor, pinned, extraCost },
    { order: conversation?.window_starts_at ?? 0, budget: conversation?.window_budget ?? 0 },
  );
  // A resumed run or a retry with a smaller window reads as it must, and moves nothing.
  if (movedTo !== null && !options.resuming) store.conversations.setWindowStart(conversationId, movedTo, budget);
  const triggers = rows.filter((row) => pinned.has(row.id) && row.role === 'user');
  const opening: ChatMessage[] = summary ? [{ role: 'user', content: summaryText(summary.summary) }] : [];
  const speakers = [
    ...new Set(rows.flatMap((row) => (row.role === 'user' && row.author_name ? [row.author_name] : []))),
  ];
  if (options.resuming) {
    return {
      speakers,
      history:
        triggers.length === 0 ? [] : [...opening, ...toChatMessages(rows, counter, settings.messageTokenCap, images)],
      input: [],
    };
  }
  return {
    speakers,
    history: [
      ...opening,
      ...toChatMessages(
        rows.filter((row) => !pinned.has(row.id)),
        counter,
        settings.messageTokenCap,
        images,
      ),
    ],
    input: toChatMessages(triggers, counter, settings.messageTokenCap, images) as UserMessage[],
  };
}

/** The conversation's summary, when summaries are on and it is current (a stale one is being rebuilt). */
function usableSummary(store: Store, settings: MemorySettings, conversationId: number): SummaryRow | null {
  if (settings.summaries === false) return null;
  const summary = store.summaries.of(conversationId);
  return summary && summary.stale === 0 && summary.summary !== '' ? summary : null;
}

function runRecordSink(
  { store, counter }: MemoryParts,
  conversationId: number,
  instanceId: string,
  run: RunRecordOptions,
  logger: Logger,
): AgentEventSink {
  const triggerIds = [...(run.triggerIds ?? [])];
  const answersId =
    run.answersId !== undefined ? run.answersId : triggerIds.length > 0 ? Math.max(...triggerIds) : null;
  const stepLog = stepLogSink(store.runs, store.steps, {
    conversationId,
    instanceId,
    triggerMessageIds: triggerIds,
    resumedFrom: run.resumedFrom ?? null,
  });
  const both = fanOut(
    run.remember === false ? [stepLog] : [stepLog, memorySink(store.messages, counter, conversationId, answersId)],
    logger,
  );
  const write = store.db.transaction((events: readonly AgentEvent[]) => {
    for (const event of events) both(event);
  });
  return writeBehind(write, logger);
}

export type ConversationMemory = ReturnType<typeof conversationMemory>;

function* filtered<T>(items: Iterable<T>, keep: (item: T) => boolean): Generator<T> {
  for (const item of items) if (keep(item)) yield item;
}
