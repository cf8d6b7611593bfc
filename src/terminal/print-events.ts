import type { AgentEventSink } from '../agent/events.ts';

/** Shortens a text to one line of at most `max` characters, for printing. */
export function shorten(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}

/** Prints each tool invocation as it starts, and its result or error, named, when it ends (parallel calls end in any order). */
export function printToolEvents(write: (line: string) => void): AgentEventSink {
  return (event) => {
    switch (event.type) {
      case 'tool-call':
        write(`  → ${event.name} ${shorten(event.arguments, 300)}`);
        break;
      case 'tool-result':
        write(`  ← ${event.name}: ${shorten(event.result, 300)}`);
        break;
      case 'tool-error':
        if (event.name !== 'final_answer') write(`  ← ${event.name} ${event.kind}: ${shorten(event.error, 300)}`);
        break;
      default:
        break;
    }
  };
}
