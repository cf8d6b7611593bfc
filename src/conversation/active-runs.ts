/** Where a run of this process is: waiting (for the model's rate limit, or its turn) or running. */
export type ActiveRunState = 'waiting' | 'running';

/** A run of this process, from the moment it is planned until it is delivered. */
export interface ActiveRun {
  /** Fires when someone stops the run (`/stop`). */
  readonly stopped: AbortSignal;
  /** waiting → running: its first model call has its turn. */
  running(): void;
  /** The run is over (delivered, or left for the next start). */
  end(): void;
}

/**
 * The runs going on in this process, one per conversation at the most (a conversation's queue runs
 * one at a time), so that `/stop` can stop them and say what they were doing.
 */
export class ActiveRuns {
  private readonly runs = new Map<string, { stopper: AbortController; state: ActiveRunState }>();

  begin(conversationKey: string): ActiveRun {
    const entry = { stopper: new AbortController(), state: 'waiting' as ActiveRunState };
    this.runs.set(conversationKey, entry);
    return {
      stopped: entry.stopper.signal,
      running: () => {
        entry.state = 'running';
      },
      end: () => {
        if (this.runs.get(conversationKey) === entry) this.runs.delete(conversationKey);
      },
    };
  }

  /** The state of the conversation's run, or null when none is going. */
  stateOf(conversationKey: string): ActiveRunState | null {
    return this.runs.get(conversationKey)?.state ?? null;
  }

  /** Stops the conversation's run; false when none is going. */
  stop(conversationKey: string, reason: string): boolean {
    const entry = this.runs.get(conversationKey);
    if (!entry) return false;
    entry.stopper.abort(new Error(reason));
    return true;
  }
}
