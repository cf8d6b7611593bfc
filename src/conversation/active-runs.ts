/** Where a run of this process is: waiting (for the model's rate limit, or its turn) or running. */
export type ActiveRunState = 'waiting' | 'running';

/** Who a run answers, and where: what `/forget-me` stops a member's runs by. */
export interface RunAskedBy {
  /** The conversation's server; null for a direct message. */
  guildId: string | null;
  /** The people whose messages the run answers (a batch answers several). */
  requesterIds: readonly string[];
}

/** A run of this process, from the moment it is planned until it is delivered. */
export interface ActiveRun {
  /** Fires when someone stops the run (`/stop`, a requester's `/forget-me`). */
  readonly stopped: AbortSignal;
  /** waiting → running: its first model call has its turn. */
  running(): void;
  /** The run is over (delivered, or left for the next start). */
  end(): void;
  /** Everything the run writes and posts is done, its delivery too: a forget may delete it now. */
  settled(): void;
}

interface Entry {
  stopper: AbortController;
  state: ActiveRunState;
  asked: RunAskedBy;
  /** Resolves once the run has settled. */
  done: Promise<void>;
}

/**
 * The runs going on in this process, one per conversation at the most (a conversation's queue runs
 * one at a time), so that `/stop` can stop them and say what they were doing, and so that a
 * member's `/forget-me` (forgets.ts) can stop theirs and wait for them before it deletes what they said.
 */
export class ActiveRuns {
  /** By conversation, until the run ends. */
  private readonly runs = new Map<string, Entry>();
  /** Until each has settled: a run delivering its answer still writes. */
  private readonly unsettled = new Set<Entry>();
  /** How many `/tool` calls and lone deliveries began: each is keyed apart from the conversations. */
  private keyedApart = 0;

  begin(conversationKey: string, asked: RunAskedBy): ActiveRun {
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    const entry: Entry = { stopper: new AbortController(), state: 'waiting', asked, done };
    this.runs.set(conversationKey, entry);
    this.unsettled.add(entry);
    return {
      stopped: entry.stopper.signal,
      running: () => {
        entry.state = 'running';
      },
      end: () => {
        if (this.runs.get(conversationKey) === entry) this.runs.delete(conversationKey);
      },
      settled: () => {
        this.unsettled.delete(entry);
        settle();
      },
    };
  }

  /**
   * A tool call a person makes with `/tool`: not the conversation's run (`/stop` leaves it), but
   * their `/forget-me` stops it and waits for it as for their runs, since it holds their words.
   */
  beginDirectCall(asked: RunAskedBy): ActiveRun {
    return this.begin(`/tool call ${++this.keyedApart}`, asked);
  }

  /**
   * The posting of an answer a cut-off run had reached, at the next start: nothing to stop, but a
   * `/forget-me` of its people waits for it, as for a run delivering its answer. `settled()` ends it.
   */
  beginDelivery(asked: RunAskedBy): Pick<ActiveRun, 'settled'> {
    const delivery = this.begin(`delivery ${++this.keyedApart}`, asked);
    delivery.end();
    return delivery;
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

  /**
   * Stops the member's runs in the server (null: their direct messages), and resolves once those
   * and the ones delivering an answer to them have settled. A run that answers the member with
   * others (a batch) is stopped whole: what it holds of the member cannot be taken out of it.
   */
  stopRunsOf(guildId: string | null, memberId: string): { stopped: number; settled: Promise<unknown> } {
    const theirs = [...this.unsettled].filter(
      (entry) => entry.asked.guildId === guildId && entry.asked.requesterIds.includes(memberId),
    );
    let stopped = 0;
    for (const entry of theirs) {
      // One that ended is delivering its answer: it is waited for, not stopped.
      if (![...this.runs.values()].includes(entry) || entry.stopper.signal.aborted) continue;
      entry.stopper.abort(new Error(`stopped by the /forget-me of ${memberId}`));
      stopped++;
    }
    return { stopped, settled: Promise.all(theirs.map((entry) => entry.done)) };
  }
}
