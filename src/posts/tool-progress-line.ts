/** The line that shows how far a long tool call has got, while it runs (before its tool post). */
import { truncateLine } from '../text/truncate.ts';

/** A running call's last word on its progress (a `tool-progress` event's fields). */
export interface CallProgress {
  name: string;
  progress: number;
  /** Null when the tool does not know how much there is to do. */
  total: number | null;
  message: string | null;
}

/** As many calls as a tool post lists. */
const maxCallsShown = 10;

/** "🔧 **tool** … 40% (message)": one line per call of the turn that told its progress. */
export function renderToolProgress(calls: readonly CallProgress[]): string {
  return calls
    .slice(0, maxCallsShown)
    .map((call) => {
      const done =
        call.total === null
          ? `${call.progress} so far`
          : `${Math.max(0, Math.min(100, Math.floor((call.progress / call.total) * 100)))}%`;
      const message = call.message ? ` (${truncateLine(call.message, 100)})` : '';
      return `🔧 **${truncateLine(call.name, 100)}** … ${done}${message}`;
    })
    .join('\n');
}
