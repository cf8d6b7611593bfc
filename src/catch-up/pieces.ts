/**
 * The map step's pieces: the lines of a long span cut into runs of whole lines, each within a token
 * budget (counted with the memory's TokenCounter), so each piece is summed up in one model call and
 * the pieces' summaries then together. A line longer than the budget is a piece of its own, cut by
 * the counter's `truncate`.
 */
import type { TokenCounter } from '../memory/token-counter.ts';

/** The lines in order, in pieces of at most `budget` tokens each. */
export function cutIntoPieces(
  lines: readonly string[],
  budget: number,
  counter: Pick<TokenCounter, 'count' | 'truncate'>,
): string[][] {
  const pieces: string[][] = [];
  let piece: string[] = [];
  let used = 0;
  for (const line of lines) {
    const tokens = counter.count(line) + 1; // the newline between lines
    if (tokens > budget) {
      if (piece.length) pieces.push(piece);
      pieces.push([counter.truncate(line, budget - 1)]);
      piece = [];
      used = 0;
      continue;
    }
    if (used + tokens > budget && piece.length) {
      pieces.push(piece);
      piece = [];
      used = 0;
    }
    piece.push(line);
    used += tokens;
  }
  if (piece.length) pieces.push(piece);
  return pieces;
}
