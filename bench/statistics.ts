/** What the benches share to report and to drive their helper processes. */
import type { ChildProcess } from 'node:child_process';

/** The value below which a fraction `q` of `values` fall (nearest rank; `values` is not changed). */
export const quantile = (values: readonly number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;

/** Sends `message` to a child process over IPC; resolves with its next reply (of `type`, when given). */
export const askChild = <T>(child: ChildProcess, message: object, type?: string) =>
  new Promise<T>((resolve) => {
    const listener = (reply: { type?: string }) => {
      if (type !== undefined && reply.type !== type) return;
      child.off('message', listener);
      resolve(reply as T);
    };
    child.on('message', listener);
    child.send(message);
  });
