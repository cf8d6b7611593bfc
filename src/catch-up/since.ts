/**
 * Where a catch-up starts, from `/summarize since:`: a duration (`2h`, `1d`, `1w`: that long ago),
 * a message link (from that message on, only in the channel asked about), or nothing (the asker's
 * own last message there, else the last 24 hours — the caller looks the last message up).
 */
import { parseDuration } from '../text/duration.ts';
import { parseMessageLink } from './jump-links.ts';

/** The default span when the asker has not spoken in the place. */
const defaultSpanMs = 24 * 60 * 60 * 1000;

export type SinceStart =
  | { kind: 'time'; since: number }
  | { kind: 'message'; messageId: string }
  | { kind: 'askers-last'; orSince: number }
  | { kind: 'refused'; reason: string };

/** The start `since:` names, for a channel `channelId`, at time `now` (ms). */
export function resolveSince(option: string | null, channelId: string, now: number): SinceStart {
  if (option === null || option.trim() === '') return { kind: 'askers-last', orSince: now - defaultSpanMs };
  const ms = parseDuration(option);
  if (ms !== null) {
    return ms > 0 ? { kind: 'time', since: now - ms } : { kind: 'refused', reason: 'The span must be longer than 0.' };
  }
  const link = parseMessageLink(option);
  if (!link)
    return { kind: 'refused', reason: '`since:` takes a duration such as `2h`, `1d`, `1w`, or a message link.' };
  if (link.channelId !== channelId) {
    return { kind: 'refused', reason: 'That message link is to another channel: use one from here.' };
  }
  return { kind: 'message', messageId: link.messageId };
}
