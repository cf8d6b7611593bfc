/**
 * The answer at the terminal as the model writes it (STREAM_ANSWERS, as in Discord): each
 * `answer-delta` (the answer read so far) adds what is new to the line after `bot: `. When the run
 * ends, what is left is printed: the tools and sources under an answer that was shown whole, or
 * the whole outcome when what was shown is not the answer (a `final_answer` refused and written
 * again, a run that failed after it began an answer). A line printed meanwhile (a tool's) ends the
 * answer's line first.
 */
import type { AgentEventSink } from '../agent/events.ts';

export interface LiveAnswer {
  sink: AgentEventSink;
  /** Prints a whole line, below the answer's line if one is being written. */
  line: (text: string) => void;
  /** Ends the answer: `head` is the answer's line (`bot: …`), `tail` what goes under it. */
  finish: (head: string, tail: string) => void;
}

export function liveAnswer(output: (text: string) => void, prefix: string): LiveAnswer {
  /** What the answer's line shows after the prefix; null when no line is being written. */
  let shown: string | null = null;
  const endLine = () => {
    if (shown !== null) output('\n');
    shown = null;
  };
  return {
    sink(event) {
      if (event.type !== 'answer-delta') return;
      if (shown !== null && event.text.startsWith(shown)) output(event.text.slice(shown.length));
      else {
        endLine();
        output(`${prefix}${event.text}`);
      }
      shown = event.text;
    },
    line(text) {
      endLine();
      output(`${text}\n`);
    },
    finish(head, tail) {
      if (shown !== null && head === `${prefix}${shown}`) output(`${tail}\n`);
      else {
        endLine();
        output(`${head}${tail}\n`);
      }
      shown = null;
    },
  };
}
