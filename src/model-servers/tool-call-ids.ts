/** Tool-call ids the bot makes: for calls read from text, for calls a server left without one, and for Mistral. */
import { createHash, randomInt, randomUUID } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const nineAlphanumerics = /^[A-Za-z0-9]{9}$/;

/** A new id: `call_<uuid>`, or nine letters or digits where the server takes only those. */
export function newCallId(short: boolean): string {
  if (!short) return `call_${randomUUID()}`;
  return Array.from({ length: 9 }, () => alphabet[randomInt(alphabet.length)]).join('');
}

/**
 * A tool-call id as Mistral takes them, nine letters or digits ("Tool call id was … but must be
 * a-z, A-Z, 0-9, with a length of 9.": langchain-ai/langchain#24668): ids already so are kept, others
 * hashed, the same id always to the same short one, so calls and their results still pair up.
 */
export function shortToolCallId(id: string): string {
  if (nineAlphanumerics.test(id)) return id;
  const hash = createHash('sha256').update(id).digest();
  return [...hash.subarray(0, 9)].map((byte) => alphabet[byte % alphabet.length]).join('');
}
