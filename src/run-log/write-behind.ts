import type { AgentEvent, AgentEventSink } from '../agent/events.ts';
import type { Logger } from '../agent/logger.ts';

/**
 * Events written as they come, each with whatever is held before it, in one transaction: what
 * happens next depends on them being on disk. A tool runs after its call's row is written (so that
 * a crash leaves it known as started, never run twice unawares); the answer is posted after it is
 * recorded; the run's end is read back by the caller as soon as `runAgent` returns; a run's first
 * row exists before anything can refer to it.
 */
const writtenAtOnce: ReadonlySet<AgentEvent['type']> = new Set(['run-start', 'tool-call', 'final-answer', 'run-end']);

/** Events held back, then written together once the run has moved on (see below). */
const heldBack: ReadonlySet<AgentEvent['type']> = new Set(['model-call', 'tool-result', 'tool-error']);

/**
 * A run's record, written in as few transactions as its guarantees allow. A model call's row waits
 * for what its reply leads to at once (the tool calls it asked for, before any tool runs, or the
 * answer), and at the latest for the end of the work in hand (`process.nextTick`); a turn's tool
 * results wait until the next model request has been sent: they are written while the model
 * works, off the path of the answer, all of a turn's in one transaction. Whatever is held is written
 * before the next event that is written at once, and at the latest when this turn of the event loop
 * ends (`setImmediate`), before any reply can be read. A crash in between loses only held rows:
 * a tool call then reads as started and unfinished, which a resumed run treats as interrupted, as it
 * would a crash during the call.
 *
 * A failed write is logged (the events are not retried: the run goes on, as when a sink throws).
 */
export function writeBehind(write: (events: readonly AgentEvent[]) => void, logger: Logger): AgentEventSink {
  let held: AgentEvent[] = [];
  const writeHeld = (then?: AgentEvent) => {
    const events = then ? [...held, then] : held;
    held = [];
    if (events.length === 0) return;
    try {
      write(events);
    } catch (error) {
      logger.error({ err: error, events: events.length, runId: events[0]!.runId }, 'writing the run record failed');
    }
  };
  return (event) => {
    if (writtenAtOnce.has(event.type)) return writeHeld(event);
    if (!heldBack.has(event.type)) return;
    held.push(event);
    // A model call's tokens are in `runs` before this turn of the event loop ends, whatever follows
    // it: the model's turn passes to the next run at `setImmediate`, and that run's admission reads
    // the day's tokens (agent/limit-model-calls.ts). Tool calls that follow take it with them sooner.
    if (event.type === 'model-call') process.nextTick(writeHeld);
    else if (held.length === 1) setImmediate(writeHeld);
  };
}
