import { KeyedSerializer } from './keyed-serializer.ts';

/**
 * One queue per conversation: its runs happen one at a time, and what arrives during a run is
 * answered by the next one, in one batch of at most `maxBatch`. Conversations run side by side.
 * Built on the same per-key serializer as the router, keyed by conversation key.
 */
export class ConversationQueues<Item> {
  private readonly waiting = new Map<string, Item[]>();
  private readonly line = new KeyedSerializer();
  /** Fired when work arrives for a conversation whose `afterDrain` is going on. */
  private readonly arrivals = new Map<string, AbortController>();

  constructor(
    private readonly handle: (conversationKey: string, batch: Item[]) => Promise<void>,
    private readonly onError: (error: unknown, conversationKey: string) => void,
    readonly maxBatch = 20,
    /**
     * Work done in the conversation's turn once its queue is empty (the memory summary): never
     * before an answer, never beside another of the same conversation. `newWork` fires when work
     * arrives meanwhile, which waits until it returns and is then handled as usual.
     */
    private readonly afterDrain?: (conversationKey: string, newWork: AbortSignal) => Promise<void>,
  ) {}

  push(conversationKey: string, item: Item): void {
    const queue = this.waiting.get(conversationKey);
    if (queue) {
      queue.push(item);
      this.arrivals.get(conversationKey)?.abort(new Error('new work for the conversation'));
      return;
    }
    this.waiting.set(conversationKey, [item]);
    void this.line.run(conversationKey, () => this.drain(conversationKey));
  }

  /**
   * Runs `task` in the conversation's turn: after its run under way and the work queued before it,
   * before work queued after it. For what must not interleave with a run (a tool called by hand,
   * whose call a run's memory window would otherwise read half-done).
   */
  exclusive<T>(conversationKey: string, task: () => Promise<T>): Promise<T> {
    return this.line.run(conversationKey, task);
  }

  /** Conversations with a run going or work waiting. */
  get activeConversations(): number {
    return this.line.activeKeys;
  }

  /** Resolves once every queue is empty and every run has ended. */
  idle(): Promise<void> {
    return this.line.idle();
  }

  private async drain(conversationKey: string): Promise<void> {
    const queue = this.waiting.get(conversationKey) ?? [];
    // The first item starts at once; later ones wait for the run before them.
    while (queue.length > 0) {
      const batch = queue.splice(0, this.maxBatch);
      try {
        await this.handle(conversationKey, batch);
      } catch (error) {
        this.onError(error, conversationKey);
      }
      if (queue.length === 0) await this.whenDrained(conversationKey);
    }
    this.waiting.delete(conversationKey);
  }

  /** Runs `afterDrain` with the queue still open: what arrives meanwhile joins it, and is handled next. */
  private async whenDrained(conversationKey: string): Promise<void> {
    if (!this.afterDrain) return;
    const arrival = new AbortController();
    this.arrivals.set(conversationKey, arrival);
    try {
      await this.afterDrain(conversationKey, arrival.signal);
    } catch (error) {
      this.onError(error, conversationKey);
    } finally {
      this.arrivals.delete(conversationKey);
    }
  }
}
