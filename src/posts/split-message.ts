import { safeCutIndex } from '../text/truncate.ts';

/**
 * Splits text for Discord's 2,000-character messages: at a line break where it can, else at a
 * space, else anywhere (never inside a surrogate pair). A piece that ends inside a code block
 * closes it, and the next piece reopens it with the same language, so each piece renders whole.
 */

export const discordMessageLimit = 2000;

/** One piece: its share of the original text, and the fence repairs around it. */
export interface Piece {
  /** The original text of this piece; the bodies joined give back the whole text. */
  body: string;
  /** Reopens a code block the previous piece closed ("```lang\n"), or "". */
  reopen: string;
  /** Closes a code block left open at the end of this piece ("\n```" or "```"), or "". */
  close: string;
}

const fenceLine = /^ {0,3}(`{3,}|~{3,})(.*)$/;
/** The longest fence (marker and language) that is reopened in the next piece. */
const maxRepair = 100;

export function splitMessage(text: string, limit = discordMessageLimit): string[] {
  return splitPieces(text, limit).map(render);
}

export function render(piece: Piece): string {
  return piece.reopen + piece.body + piece.close;
}

export function splitPieces(text: string, limit = discordMessageLimit): Piece[] {
  const pieces: Piece[] = [];
  let position = 0;
  let open: Fence | null = null;
  while (position < text.length) {
    const reopen = open && repairable(open) ? `${open.marker}${open.info}\n` : '';
    const rest = text.slice(position);
    if (reopen.length + rest.length <= limit) {
      pieces.push({ body: rest, reopen, close: '' });
      break;
    }
    // Cut as late as fits; if the closing fence then overflows, cut earlier by as much.
    let room = limit - reopen.length;
    let piece: Piece;
    let after: Fence | null;
    for (;;) {
      const body = text.slice(position, position + cutPoint(text, position, room));
      after = fenceStateAfter(body, open);
      const close = after && repairable(after) ? `${body.endsWith('\n') ? '' : '\n'}${after.marker}` : '';
      piece = { body, reopen, close };
      const overflow = render(piece).length - limit;
      if (overflow <= 0) break;
      room = Math.max(1, room - overflow);
    }
    pieces.push(piece);
    open = after;
    position += piece.body.length;
  }
  return pieces;
}

/** A fence is closed and reopened across pieces only if that costs little; a freak one is left as it is. */
function repairable(fence: Fence): boolean {
  return fence.marker.length + fence.info.length <= maxRepair;
}

interface Fence {
  marker: string;
  info: string;
}

/**
 * How much of `text` from `position` goes in a piece of at most `room`: up to the last line break,
 * else the last space, else as much as fits without separating a surrogate pair (a whole pair
 * when the room is one).
 */
function cutPoint(text: string, position: number, room: number): number {
  const window = text.slice(position, position + room);
  const newline = window.lastIndexOf('\n');
  if (newline > 0) return newline + 1;
  const space = window.lastIndexOf(' ');
  if (space > 0) return space + 1;
  return Math.max(1, safeCutIndex(text, position + room) - position);
}

/** The code block open at the end of `text`, given the one open at its start. */
function fenceStateAfter(text: string, open: Fence | null): Fence | null {
  let state = open;
  for (const line of text.split('\n')) {
    const match = fenceLine.exec(line);
    if (!match) continue;
    const marker = match[1]!;
    if (state === null) state = { marker, info: match[2]!.trim() };
    else if (marker[0] === state.marker[0] && marker.length >= state.marker.length && match[2]!.trim() === '')
      state = null;
  }
  return state;
}
