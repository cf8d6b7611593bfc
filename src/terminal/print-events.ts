import type { AgentEventSink } from '../agent/events.ts';
import { truncateLine } from '../text/truncate.ts';

/** Prints each tool invocation as it starts, and its result or error, named, when it ends (parallel calls end in any order). */
export function printToolEvents(write: (line: string) => void): AgentEventSink {
  return (event) => {
    switch (event.type) {
      case 'tool-call':
        write(`  → ${event.name} ${truncateLine(event.arguments, 300)}`);
        break;
      case 'tool-result':
        write(`  ← ${event.name}: ${truncateLine(event.result, 300)}`);
        break;
      case 'tool-error':
        if (event.name !== 'final_answer') write(`  ← ${event.name} ${event.kind}: ${truncateLine(event.error, 300)}`);
        break;
      default:
        break;
    }
  };
}
