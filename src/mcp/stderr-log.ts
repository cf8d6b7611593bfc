/**
 * An MCP server's stderr in the bot's log: line by line, each cut short, and never a flood. Its last
 * lines are kept too, for the reason a server that fails to start is down: what it printed there
 * (a missing directory, a bad token) is the real reason, which "Connection closed" is not.
 */
import type { Logger } from '../agent/logger.ts';
import { cutAt, truncate } from '../text/truncate.ts';

/** Lines of a server's stderr longer than this are cut in the log. */
const maxStderrLine = 500;
/** At most this many stderr lines are logged per window; the rest are counted, so a chatty server cannot flood the log. */
const stderrLinesPerWindow = 20;
const stderrWindowMs = 10_000;
/** The end of a server's stderr given in the reason it is down: its last lines, within this length. */
const maxTailLength = 200;
const tailLines = 5;

/** The first line of an error a process printed as it died: "Error: …", "TypeError: …", "SyntaxError: …". */
const errorLine = /^\s*(?:Uncaught )?[A-Z]?[A-Za-z]*Error(?: \[[A-Z_]+\])?: \S/;

/** A stack frame, a source excerpt Node prints above an error, or its version line: no reason. */
const stackOrExcerpt = /^\s+at |^\s*\^+\s*$|^node:internal\/|^\s*throw\b|^Node\.js v\d|^\s*[{}]\s*$|^\s+\w+: .*,?$/;

/** The last lines a server wrote to stderr, masked. */
export interface StderrTail {
  /** Its last lines joined with " | ", cut from the front to fit; "" if it wrote none. */
  text(): string;
}

/**
 * Logs what the server writes to `stream` (a stdio server's stderr; null for HTTP servers), each
 * line `masked` (its secrets taken out) before it is cut, as a secret cut in half is not found.
 */
export function logStderr(
  stream: unknown,
  logger: Logger,
  serverName: string,
  masked: (line: string) => string = (line) => line,
): StderrTail {
  const stderr = stream as (NodeJS.ReadableStream & { setEncoding(encoding: 'utf8'): void }) | null;
  stderr?.setEncoding('utf8');
  let pending = '';
  const last: string[] = [];
  const limited = withinLogLimit(logger, serverName, 'MCP server stderr: lines left out of the log');
  // The lines up to the last error a process printed as it died, its stack and source excerpt left out.
  let upToError: string[] | null = null;
  const log = (line: string) => {
    const shown = truncate(masked(line.trim()), maxStderrLine);
    if (!stackOrExcerpt.test(line)) {
      last.push(shown);
      if (last.length > tailLines) last.shift();
      if (errorLine.test(line)) upToError = [...last];
    }
    limited(() =>
      logger.info({ mcpServer: serverName, stderr: truncate(masked(line), maxStderrLine) }, 'MCP server stderr'),
    );
  };
  stderr?.on('data', (chunk: string) => {
    const lines = (pending + chunk).split(/\r?\n|\r/);
    // A line that never ends is cut, not kept growing.
    pending = cutAt(lines.pop() ?? '', maxStderrLine);
    for (const line of lines) if (line.trim() !== '') log(line);
  });
  return {
    text: () => {
      // Node's uncaught error ("Error: Cannot find module …") is the cause: the stack after it is not.
      const joined = (upToError ?? last).join(' | ');
      return joined.length <= maxTailLength ? joined : `…${joined.slice(-(maxTailLength - 1))}`;
    },
  };
}

/**
 * Runs the `log` it is given at most 20 times per 10 s window; the rest are counted, and their
 * number logged (as `droppedMessage`) when the next window opens, so a chatty server cannot flood the log.
 */
export function withinLogLimit(logger: Logger, serverName: string, droppedMessage: string): (log: () => void) => void {
  let windowStart = 0;
  let logged = 0;
  let dropped = 0;
  return (log) => {
    const now = Date.now();
    if (now - windowStart >= stderrWindowMs) {
      if (dropped > 0) logger.info({ mcpServer: serverName, droppedLines: dropped }, droppedMessage);
      windowStart = now;
      logged = 0;
      dropped = 0;
    }
    if (logged >= stderrLinesPerWindow) dropped += 1;
    else {
      logged += 1;
      log();
    }
  };
}
