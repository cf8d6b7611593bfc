/**
 * Lets tests wait for the fake's state: every change notifies, and `waitFor` re-checks then (and
 * every 10 ms, for state outside the fake such as the client's caches or the bot's database).
 */
import type { WaitForOptions } from './types.ts';

export class Changes {
  private readonly listeners = new Set<() => void>();

  notify(): void {
    // A copy: a listener added while these run waits for the next change.
    for (const listener of Array.from(this.listeners)) listener();
  }

  /**
   * Resolves with the first truthy value of `check`. `describe` adds the fake's recent state to
   * the timeout error.
   */
  waitFor<T>(check: () => T | undefined | null | false, options: WaitForOptions, describe: () => string): Promise<T> {
    const timeoutMs = options.timeoutMs ?? 5000;
    return new Promise<T>((resolve, reject) => {
      let last: unknown;
      const evaluate = (): boolean => {
        try {
          last = check();
        } catch (error) {
          last = error;
          return false;
        }
        if (!last) return false;
        finish();
        resolve(last as T);
        return true;
      };
      const finish = () => {
        clearTimeout(timer);
        clearInterval(poll);
        this.listeners.delete(listener);
      };
      const listener = () => void evaluate();
      const poll = setInterval(listener, 10);
      const timer = setTimeout(() => {
        finish();
        const lastText =
          last instanceof Error ? `threw ${last.message}` : `returned ${JSON.stringify(last) ?? String(last)}`;
        reject(
          new Error(
            `fake Discord: waitFor ${options.what ?? check.toString()} timed out after ${timeoutMs} ms; the check last ${lastText}\n${describe()}`,
          ),
        );
      }, timeoutMs);
      this.listeners.add(listener);
      evaluate();
    });
  }
}
