/** Unique fake secrets, and how the secrets tests find one (or a long piece of one) where it must not be. */
import { randomBytes } from 'node:crypto';

/** A random secret that no other text can hold by chance; not shaped like any known kind of key. */
export function uniqueSecret(prefix: string): string {
  return `${prefix}-${randomBytes(24).toString('hex')}`;
}

/** A secret, and the long pieces of it a leak may hold (a leak may be cut or wrapped). */
export function piecesOf(name: string, secret: string, from = 0): { name: string; text: string }[] {
  return [
    { name, text: secret },
    ...[0, 16, 32]
      .filter((start) => from + start + 16 <= secret.length)
      .map((start) => ({
        name: `${name} (characters ${from + start} to ${from + start + 16})`,
        text: secret.slice(from + start, from + start + 16),
      })),
  ];
}

/** The names of the pieces found in `haystack` (text, or raw bytes searched as UTF-8). */
export function leaksIn(pieces: readonly { name: string; text: string }[], haystack: string | Buffer): string[] {
  return pieces
    .filter((piece) =>
      typeof haystack === 'string' ? haystack.includes(piece.text) : haystack.includes(Buffer.from(piece.text)),
    )
    .map((piece) => piece.name);
}
