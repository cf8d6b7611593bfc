/**
 * A body read as it comes (a streamed reply), within bounds a whole body gets from being read at
 * once: no more than so many bytes in all, and no longer than so long between two pieces (a time
 * limit on the request covers only the wait for its headers, then nothing). This folder imports
 * nothing of the project: the errors are the caller's.
 */

export interface BodyBounds {
  /** The most bytes read; past them the body errors with `tooLarge()` and the rest is not read. */
  maxBytes: number;
  /** The longest wait for the next piece; past it the body errors with `stalled()`. */
  maxGapMs: number;
  tooLarge(): Error;
  stalled(): Error;
}

/** `body`, piece by piece, erroring (and cancelling what is left of `body`) once a bound is passed. */
export function boundedBody(body: ReadableStream<Uint8Array>, bounds: BodyBounds): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(bounds.stalled()), bounds.maxGapMs);
      });
      try {
        const { done, value } = await Promise.race([reader.read(), stalled]);
        if (done) return controller.close();
        total += value.byteLength;
        if (total > bounds.maxBytes) throw bounds.tooLarge();
        controller.enqueue(value);
      } catch (error) {
        // The connection goes too: a server stalled or flooding is not read any further.
        reader.cancel(error).catch(() => {});
        controller.error(error);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
