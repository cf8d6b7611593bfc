/**
 * One at a time per key: tasks given the same key run one after another, in the order given;
 * tasks of different keys run side by side. A key is forgotten as soon as its last task settles,
 * so memory does not grow with the keys ever seen. A failing task does not stop the ones after it.
 */
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Runs `task` once every task given `key` before it has settled (at once, synchronously up to its
   * first await, when there is none); resolves or rejects as it does.
   */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key);
    const result = before ? before.then(task) : startNow(task);
    const tail = result.then(
      () => {},
      () => {},
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Resolves once every task given `key` so far has settled (at once for an idle key). */
  settled(key: string): Promise<void> {
    return this.tails.get(key) ?? Promise.resolve();
  }

  /** Keys with a task running or waiting. */
  get activeKeys(): number {
    return this.tails.size;
  }

  /** Resolves once no key has a task, including tasks given while it waits. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all(this.tails.values());
  }
}

/** Starts a task in the current tick; a synchronous throw becomes a rejection. */
async function startNow<T>(task: () => Promise<T>): Promise<T> {
  return task();
}
