/**
 * Where a run meets a forget. A member's `/forget-me` (or `npm run forget` in another process)
 * deletes what they said; a run holds their words from the moment it loads its memory window until
 * its answer is posted. So: a forget stops the member's runs in the place and waits for them (and
 * for answers being delivered to them) to settle before it deletes; and a run loads its window only
 * once no forget is going on in its place (`clearOf`), beginning in the same tick, so that a later
 * forget finds it. What a run reached after a forget took its row is never posted (the before-post
 * seat, src/discord/runs/before-post.ts).
 */
import type { ActiveRuns } from './active-runs.ts';

export class Forgets {
  /** The forgets going on, by server (null: direct messages): new runs there wait for them. */
  private readonly going = new Map<string | null, Set<Promise<unknown>>>();

  constructor(private readonly runs: ActiveRuns) {}

  /**
   * Resolves once no forget is going on in the server (null: direct messages): a run loads its
   * memory window after this, so that it never reads what a forget is about to delete.
   */
  async clearOf(guildId: string | null): Promise<void> {
    for (let going = this.going.get(guildId); going?.size; going = this.going.get(guildId))
      await Promise.allSettled(going);
  }

  /**
   * Stops the member's runs in the server (null: their direct messages), waits up to `waitMs` for
   * them and for those delivering an answer to settle, then runs `forget`; new runs of the server
   * wait meanwhile (`clearOf`). Says how many runs it stopped.
   */
  async forgetting<T>(
    guildId: string | null,
    memberId: string,
    forget: () => T | Promise<T>,
    waitMs = 5_000,
  ): Promise<{ stopped: number; result: T }> {
    const work = this.stopAndForget(guildId, memberId, forget, waitMs);
    const going = this.going.get(guildId) ?? new Set<Promise<unknown>>();
    this.going.set(guildId, going.add(work));
    try {
      return await work;
    } finally {
      going.delete(work);
      if (going.size === 0) this.going.delete(guildId);
    }
  }

  private async stopAndForget<T>(
    guildId: string | null,
    memberId: string,
    forget: () => T | Promise<T>,
    waitMs: number,
  ): Promise<{ stopped: number; result: T }> {
    const { stopped, settled } = this.runs.stopRunsOf(guildId, memberId);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
    try {
      await Promise.race([settled, late]);
    } finally {
      clearTimeout(timer);
    }
    return { stopped, result: await forget() };
  }
}
