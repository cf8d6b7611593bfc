/**
 * Moves each channel's cursor (the newest message handled, with every older one seen) as messages
 * are handled. Messages of a channel are handled side by side (each has its own conversation key),
 * so a newer one can finish first: the cursor then waits until the older ones in flight are done,
 * so that a crash never leaves a mention behind the cursor unstored. Snowflakes grow with time.
 */
export class ChannelProgress {
  private readonly channels = new Map<string, { inFlight: Set<bigint>; done: bigint | null }>();

  constructor(private readonly advance: (channelId: string, guildId: string, messageId: string) => void) {}

  /** A message starts being handled; call what it returns once it is (stored, refused or ignored). */
  begin(channelId: string, guildId: string, messageId: string): () => void {
    const id = BigInt(messageId);
    let channel = this.channels.get(channelId);
    if (!channel) {
      channel = { inFlight: new Set(), done: null };
      this.channels.set(channelId, channel);
    }
    channel.inFlight.add(id);
    const state = channel;
    return () => {
      state.inFlight.delete(id);
      if (state.done === null || id > state.done) state.done = id;
      const oldest = state.inFlight.size === 0 ? null : [...state.inFlight].reduce((a, b) => (a < b ? a : b));
      if (oldest !== null && oldest < state.done) return; // An older message is still on its way in.
      this.advance(channelId, guildId, state.done.toString());
      if (state.inFlight.size === 0) this.channels.delete(channelId);
      else state.done = null;
    };
  }
}
