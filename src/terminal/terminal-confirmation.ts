import type { Interface } from 'node:readline';
import type { ConfirmTool } from '../agent/tool.ts';
import { untilAborted } from '../agent/until-aborted.ts';

/**
 * The session's lines, read one at a time by whoever needs the next: the loop that answers them,
 * or a confirmation waiting for `y`. A read given up (the answer was stopped while it waited) stays
 * pending for the next reader, so the line the person types next is not lost.
 */
export interface LineReader {
  /** The next line; null at the end of input; `stoppedRead` when `signal` fired first. */
  next(signal?: AbortSignal): Promise<string | null | typeof stoppedRead>;
}

/** What a read given up answers: the line, when it comes, goes to the next reader. */
const stoppedRead = Symbol('stopped');

export function lineReader(lines: Interface): LineReader {
  const iterator = lines[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<string>> | null = null;
  return {
    async next(signal) {
      pending ??= iterator.next();
      let result: IteratorResult<string>;
      try {
        result = await (signal ? untilAborted(pending, signal) : pending);
      } catch (error) {
        if (signal?.aborted) return stoppedRead;
        throw error;
      }
      pending = null;
      return result.done ? null : result.value;
    },
  };
}

/**
 * The terminal's Confirm / Cancel: a call that needs the person's word (an MCP tool that may
 * change or delete things) is shown with its arguments, and the next line decides: `y` or `yes`
 * runs it, anything else does not; the end of input, or Ctrl-C stopping the answer, cancels it.
 */
export function terminalConfirmation(reader: LineReader, write: (text: string) => void): ConfirmTool {
  return async (request) => {
    write(`  ? ${request.tool} ${request.arguments} may change or delete things: run it? [y/N]`);
    const answer = await reader.next(request.signal);
    if (typeof answer !== 'string') return { decision: 'cancelled', by: null };
    const { id, displayName } = request.requester;
    return { decision: /^(y|yes)$/i.test(answer.trim()) ? 'confirmed' : 'cancelled', by: { id, displayName } };
  };
}
