/**
 * One queue per conversation thread: runs in a thread happen one at a time, and what arrives
 * during a run is answered by the next one, in one batch. Different threads run side by side. A
 * thread's queue is dropped as soon as it is empty, so memory does not grow with threads seen.
 */
export class ThreadQueues<Item> {
  private readonly queues = new Map<string, Item[]>();
  private readonly draining = new Set<Promise<void>>();

  constructor(
    private readonly handle: (threadId: string, batch: Item[]) => Promise<void>,
    private readonly onError: (error: unknown, threadId: string) => void,
    readonly maxBatch = 20,
  ) {}

  push(threadId: string, item: Item): void {
    const queue = this.queues.get(threadId);
    if (queue) {
      queue.push(item);
      return;
    }
    this.queues.set(threadId, [item]);
    const drained = this.drain(threadId).finally(() => this.draining.delete(drained));
    this.draining.add(drained);
  }

  /** Threads with a run going or messages waiting. */
  get activeThreads(): number {
    return this.queues.size;
  }

  /** Resolves once every queue is empty and every run has ended. */
  async idle(): Promise<void> {
    while (this.draining.size > 0) await Promise.all(this.draining);
  }

  private async drain(threadId: string): Promise<void> {
    const queue = this.queues.get(threadId)!;
    // The first message starts at once; later ones wait for the run before them.
    while (queue.length > 0) {
      const batch = queue.splice(0, this.maxBatch);
      try {
        await this.handle(threadId, batch);
      } catch (error) {
        this.onError(error, threadId);
      }
    }
    this.queues.delete(threadId);
  }
}
