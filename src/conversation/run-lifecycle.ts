/**
 * The life of a run, every state and every transition, in one place. The SQL is in db/runs.ts;
 * the step-log sink writes a run's start and end as its events happen (run-start, run-end); the
 * other transitions are the named functions below. Read this file to learn what a run can be.
 *
 * ```
 *   message stored ─► queued ─► waiting (rate limit) ─► running ─run-end─► answered | failed | stopped
 *   (in memory)        │            (in memory)           │  (row)                   │
 *                      └─ budget spent ─► failed ─────────┼──────────────────────────┤
 *                         (refused, no model call)        │ shutdown, crash          ├─ deliver ─► delivered
 *                                                         ▼                          │   (posted | post-failed |
 *                                              interrupted ◄─────────────────────────┘    withheld)
 *                                                   │              context too long:
 *                      at the next start: resume ──┤              retried (delivered) + a new run
 *                        - an answer on disk: post it (delivered: posted)
 *                        - its messages deleted: delivered (nothing-to-answer)
 *                        - cut off 3 times in a chain: given up (delivered)
 *                        - else a new run continues it (resumed_from = this run)
 * ```
 *
 * A run is owed to its people until it is delivered: at start-up, every run that is interrupted,
 * or that ended but was never delivered (a crash in between), and that no later run resumed, is
 * resumed. The runs of a process that died are marked interrupted by the next process
 * (src/run-log/instance.ts), so "running" on disk always means a live process runs it.
 */
import type { NewRun, RunDelivery, RunRow } from '../../db/runs.ts';
import type { Store } from '../../db/store.ts';
import type { FinalAnswer } from '../agent/final-answer.ts';

/** A run cut off this many times (itself and the runs it resumed) is not resumed again. */
export const maxResumptions = 3;

/** What a run is now, as far as its row says (queued and waiting live in memory only). */
export type RunState =
  | 'queued'
  | 'waiting'
  | 'running'
  | 'answered'
  | 'failed'
  | 'stopped'
  | 'interrupted'
  | 'delivered'
  | 'given-up';

/** The state of a run from its row. */
export function stateOf(run: RunRow): RunState {
  if (run.delivery === 'given-up') return 'given-up';
  if (run.delivered_at !== null) return 'delivered';
  return run.status;
}

/** What resuming a run means, decided from the step log. */
export type Resumption =
  /** It reached an answer that may not have been posted: post what the channel does not show. */
  | { kind: 'post-answer'; answer: FinalAnswer; triggerIds: number[] }
  /** Every message it answered was deleted. */
  | { kind: 'nothing-to-answer' }
  /** Cut off again and again (a tool that brings the process down, say): stop trying. */
  | { kind: 'give-up'; triggerIds: number[] }
  /** The model continues from the steps on disk, in a new run that takes this one up. */
  | { kind: 'continue'; triggerIds: number[]; calledBefore: string[] };

/** Step errors of calls that never ran their tool. */
const notRun = new Set(['unknown-tool', 'invalid-arguments', 'not-executed', 'not-confirmed']);

/** Told of transitions, inside their transaction: what must not be lost with them (the log channel's card). */
export interface LifecycleHooks {
  /** The run is settled: delivered (answered, failed, stopped, refused), given up; not when a retry takes it up. */
  settled?(runId: string): void;
}

export function runLifecycle(store: Pick<Store, 'db' | 'runs' | 'steps' | 'messages'>, hooks: LifecycleHooks = {}) {
  const { runs, steps } = store;
  /** The transition and its hook in one transaction: a crash keeps both or neither. */
  const settle = (runId: string, transition: () => void) =>
    store.db.transaction(() => {
      transition();
      hooks.settled?.(runId);
    })();

  /** The tools a run ran (finished or not), from its step log. */
  const toolsRunIn = (runId: string): string[] => {
    const ran = steps
      .ofRun(runId)
      .filter((step) => step.kind === 'tool-call' && step.tool_name && !notRun.has(step.error_kind ?? ''));
    return [...new Set(ran.map((step) => step.tool_name!))];
  };

  /** The tools a run and the runs it took up in turn ran: `tools_used` may name them. */
  const toolsRunInChain = (runId: string): string[] => [
    ...new Set(runs.chain(runId).flatMap((run) => toolsRunIn(run.id))),
  ];

  return {
    toolsRunInChain,

    /** The runs of a conversation owed to its people, oldest first: to resume at start-up. */
    owed: (conversationId: number): RunRow[] => runs.toResume(conversationId),

    /** The newest message a run of the conversation was started for: later ones are still to answer. */
    latestAnswered: (conversationId: number): number => runs.latestTrigger(conversationId),

    /** Decides how an owed run is resumed. */
    resumption(run: RunRow): Resumption {
      const triggerIds = JSON.parse(run.trigger_message_ids) as number[];
      const answered = steps.ofRun(run.id).find((step) => step.kind === 'final-answer');
      if (answered?.result)
        return { kind: 'post-answer', answer: JSON.parse(answered.result) as FinalAnswer, triggerIds };
      if (!triggerIds.some((id) => store.messages.byId(id))) return { kind: 'nothing-to-answer' };
      if (runs.chain(run.id, maxResumptions).length >= maxResumptions) return { kind: 'give-up', triggerIds };
      return { kind: 'continue', triggerIds, calledBefore: toolsRunInChain(run.id) };
    },

    /** running → interrupted: the process is shutting down; the next start takes it up. */
    interrupt: (runId: string, reason: string) => runs.interrupt(runId, reason),

    /** An interrupted run's answer, found on disk: it did answer, and its post was tried (`delivery`). */
    answeredAfterAll: (runId: string, delivery: 'posted' | 'post-failed') =>
      settle(runId, () => {
        runs.markAnswered(runId);
        runs.markDelivered(runId, delivery);
      }),

    /** answered | failed | stopped | interrupted → delivered: nothing more is owed for it. */
    deliver: (runId: string, delivery: Exclude<RunDelivery, 'retried' | 'given-up'>) =>
      settle(runId, () => runs.markDelivered(runId, delivery)),

    /** interrupted → given up: cut off too many times; its people were told to ask again. */
    giveUp: (runId: string) => settle(runId, () => runs.markDelivered(runId, 'given-up')),

    /**
     * failed (context too long) → delivered (retried): a new run with a smaller window takes it
     * up; its tool calls stay in memory, its failure is not posted. Returns what the new run needs.
     */
    retry(runId: string): { resumedFrom: string; calledBefore: string[] } {
      runs.markDelivered(runId, 'retried');
      return { resumedFrom: runId, calledBefore: toolsRunInChain(runId) };
    },

    /**
     * queued → failed and delivered at once: the daily budget was spent when the run's first model
     * call had its turn. `told` says whether its people get the notice now (delivered once posted)
     * or were told already (withheld).
     */
    refuse(run: NewRun & { reason: string; told: boolean }) {
      const record = () => runs.recordRefused({ ...run, error: run.reason, delivery: run.told ? null : 'withheld' });
      // Told now: settled when the notice is delivered. Withheld: settled at once.
      if (run.told) record();
      else settle(run.id, record);
    },
  };
}

export type RunLifecycle = ReturnType<typeof runLifecycle>;
