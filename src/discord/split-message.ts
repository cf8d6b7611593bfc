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
/** A closing fence is a line break and a marker; markers longer than 15 are not worth splitting for. */
const closingRoom = 16;

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
    const reopen: string = open ? `${open.marker}${open.info}\n` : '';
    const rest = text.slice(position);
    const restState = fenceStateAfter(rest, open);
    if (reopen.length + rest.length <= limit) {
      pieces.push({ body: rest, reopen, close: '' });
      open = restState;
      break;
    }
    // Leave room for a closing fence, should the piece end inside a code block.
    const room = limit - reopen.length - closingRoom;
    const end = position + cutPoint(text.slice(position, position + room));
    const body = text.slice(position, end);
    const after = fenceStateAfter(body, open);
    const close = after ? `${body.endsWith('\n') ? '' : '\n'}${after.marker}` : '';
    pieces.push({ body, reopen, close });
    open = after;
    position = end;
  }
  return pieces;
}

interface Fence {
  marker: string;
  info: string;
}

/** Where to cut `window` (the most that fits): after its last line break, else its last space. */
function cutPoint(window: string): number {
  const newline = window.lastIndexOf('\n');
  if (newline > 0) return newline + 1;
  const space = window.lastIndexOf(' ');
  if (space > 0) return space + 1;
  const last = window.charCodeAt(window.length - 1);
  // Do not separate the halves of a surrogate pair.
  return last >= 0xd800 && last <= 0xdbff && window.length > 1 ? window.length - 1 : window.length;
}

/** The code block open at the end of `text`, given the one open at its start. */
function fenceStateAfter(text: string, open: Fence | null): Fence | null {
  let state = open;
  for (const line of text.split('\n')) {
    const match = fenceLine.exec(line);
    if (!match) continue;
    const marker = match[1]!;
    if (state === null) state = { marker, info: match[2]!.trim() };
    else if (marker[0] === state.marker[0] && marker.length >= state.marker.length && match[2]!.trim() === '') state = null;
  }
  return state;
}
