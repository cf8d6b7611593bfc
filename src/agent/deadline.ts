/**
 * A signal that fires when its parent fires or its time runs out, whichever comes first. One
 * AbortController and one timer: cheaper than `AbortSignal.any` with `AbortSignal.timeout`, and
 * `dispose()` detaches it from the parent, so that a long run does not collect listeners.
 */
export interface Deadline {
  signal: AbortSignal;
  /** True when the time ran out (rather than the parent firing). */
  readonly expired: boolean;
  dispose(): void;
}

export function deadline(timeoutMs: number, parent?: AbortSignal): Deadline {
  const controller = new AbortController();
  let expired = false;
  const onParentAbort = () => controller.abort(parent?.reason);
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DOMException(`time limit of ${timeoutMs} ms reached`, 'TimeoutError'));
  }, timeoutMs);
  timer.unref?.();
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
