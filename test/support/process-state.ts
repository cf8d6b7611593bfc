/** Facts about a process from /proc, for tests and benches that kill processes. */
import { readdirSync } from 'node:fs';
import { processState } from '../../db/process-state.ts';

export { processState };

/**
 * True once `pid` has exited (every thread, so the kernel has closed its files and dropped its
 * locks) but its parent has not reaped it. The main thread shows Z before the others are done,
 * so Z alone is not enough: the threads left are listed in /proc/<pid>/task.
 */
export function exitedUnreaped(pid: number): boolean {
  if (processState(pid) !== 'Z') return false;
  try {
    return readdirSync(`/proc/${pid}/task`).length === 1;
  } catch {
    return false;
  }
}

/** Resolves once `fact(pid)` holds (polled: /proc sends no events). */
export async function waitForProcess(
  pid: number,
  fact: (pid: number) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!fact(pid)) {
    if (performance.now() > deadline)
      throw new Error(`process ${pid}: not ${what} after ${timeoutMs} ms (state ${processState(pid) ?? 'gone'})`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
