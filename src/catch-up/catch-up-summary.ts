/**
 * A `/summarize` summed up, Discord-free. Comes from: commands/summarize.ts, with the messages read
 * from Discord (src/discord/catch-up/read-history.ts), oldest first. Does: number the messages as
 * transcript lines, cut them into pieces each within the place's window (pieces.ts), sum up each
 * piece (map), then merge the pieces' summaries, in groups within the window again until one is left
 * (reduce); one piece is summed up in one call. Goes to: the command, which turns the numbers the
 * model cites into checked jump links (catch-up-links.ts) and records the run (db/catch-up-runs.ts).
 */
import type { CatchUpCall } from '../../db/catch-up-runs.ts';
import type { ModelClient, ModelRequest } from '../agent/model-client.ts';
import { ModelError } from '../agent/model-error.ts';
import type { TokenCounter } from '../memory/token-counter.ts';
import { formatUserContent } from '../memory/window.ts';
import { catchUpOfReply, mergeRequest, pieceRequest } from './catch-up-request.ts';
import { cutIntoPieces } from './pieces.ts';

/** One message read, as the summary needs it. */
export interface ReadMessage {
  id: string;
  authorId: string;
  authorName: string;
  /** When it was sent (ms). */
  at: number;
  /** Its text, with its attachments and embeds named. */
  text: string;
}

/** What summing up uses: the place's model, its window, token counting. */
export interface CatchUpParts {
  model: Pick<ModelClient, 'complete'>;
  /** The place's window budget (PlaceChoice.window.budget): what one call may read. */
  budget: number;
  counter: Pick<TokenCounter, 'count' | 'truncate'>;
  signal: AbortSignal;
  /** Told after each piece's call when there are several: pieces done, of how many. */
  progress?: (done: number, total: number) => void | Promise<void>;
  now?: () => number;
}

/** The words a final summary takes at most, and a piece's. */
const summaryWords = 350;
const pieceWords = 150;

/** The transcript line of message `index` (0-based): `#n Name (HH:MM UTC): text`. */
function transcriptLine(message: ReadMessage, index: number): string {
  const time = new Date(message.at).toISOString().slice(11, 16);
  return `#${index + 1} ${formatUserContent(message.authorName, `(${time} UTC) ${message.text.replace(/\s*\n\s*/g, ' ')}`)}`;
}

/**
 * Sums up `messages` (oldest first): the summary, citing them as `#n`. Each model call made is
 * pushed on `calls` as it ends, so that a call that fails later leaves those spent recorded.
 */
export async function sumUpMessages(
  parts: CatchUpParts,
  messages: readonly ReadMessage[],
  calls: CatchUpCall[] = [],
): Promise<string> {
  const call = (request: ModelRequest, note: string) => callModel(parts, request, note, calls);
  // Room in each call for the instructions and what the model writes.
  const room = Math.max(100, parts.budget - 400);
  const pieces = cutIntoPieces(messages.map(transcriptLine), room, parts.counter);
  if (pieces.length <= 1) return call(pieceRequest(pieces[0] ?? [], summaryWords, null), 'the messages');
  let summaries: string[] = [];
  for (const [index, piece] of pieces.entries()) {
    const part = `Part ${index + 1} of ${pieces.length}`;
    summaries.push(await call(pieceRequest(piece, pieceWords, part), `piece ${index + 1} of ${pieces.length}`));
    await parts.progress?.(index + 1, pieces.length);
  }
  for (let round = 1; summaries.length > 1; round++) {
    const groups = cutIntoPieces(summaries, room, parts.counter);
    // A group of one cannot merge: two at least, so that each round shortens the list.
    const merged = groups.length === summaries.length ? pairs(summaries) : groups;
    summaries = [];
    for (const [index, group] of merged.entries())
      summaries.push(
        group.length === 1 ? group[0]! : await call(mergeRequest(group, summaryWords), `merge ${round}.${index + 1}`),
      );
  }
  return summaries[0]!;
}

function pairs(items: readonly string[]): string[][] {
  const grouped: string[][] = [];
  for (let index = 0; index < items.length; index += 2) grouped.push(items.slice(index, index + 2));
  return grouped;
}

/** One call: its text, recorded in `calls`; a reply with no summary is a model error. */
async function callModel(parts: CatchUpParts, request: ModelRequest, note: string, calls: CatchUpCall[]) {
  const now = parts.now ?? Date.now;
  const startedAt = now();
  // A signal of its own per call: the client leaves a listener on the signal it is given
  // (MaxListenersExceededWarning on the process's shutdown signal after ten calls otherwise).
  const response = await parts.model.complete(request, AbortSignal.any([parts.signal]));
  const text = catchUpOfReply(response);
  if (text === null) throw new ModelError('invalid-response', { detail: 'the model wrote no catch-up summary' });
  calls.push({
    note,
    output: text,
    promptTokens: response.usage?.promptTokens ?? 0,
    completionTokens: response.usage?.completionTokens ?? 0,
    startedAt,
    endedAt: now(),
  });
  return text;
}
