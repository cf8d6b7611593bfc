/**
 * The answer at the terminal as the model writes it (STREAM_ANSWERS, as in Discord): each
 * `answer-delta` (the answer read so far) adds what is new to the line after `bot: `. When the run
 * ends, what is left is printed: the tools and sources under an answer that was shown whole, or
 * the whole outcome when what was shown is not the answer (a `final_answer` refused and written
 * again, a run that failed after it began an answer).
 */
import type { AgentEventSink } from '../agent/events.ts';

export interface LiveAnswer {
  sink: AgentEventSink;
  /** Ends the answer: `head` is the answer's line (`bot: …`), `tail` what goes under it. */
  finish(head: string, tail: string): void;
}

export function liveAnswer(output: (text: string) => void, prefix: string): LiveAnswer {
  let shown: string | null = null;
  return {
    sink(event) {
      if (event.type !== 'answer-delta') return;
      if (shown !== null && event.text.startsWith(shown)) output(event.text.slice(shown.length));
      else output(`${shown === null ? '' : '\n'}${prefix}${event.text}`);
      shown = event.text;
    },
    finish(head, tail) {
      if (shown !== null && head === `${prefix}${shown}`) output(`${tail}\n`);
      else output(`${shown === null ? '' : '\n'}${head}${tail}\n`);
      shown = null;
    },
  };
}
