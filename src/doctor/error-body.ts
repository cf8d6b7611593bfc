/** Reading an error body the doctor fetched itself, in whichever shape the server sends it. */
import { asOpenAIErrorBody } from '../model-servers/response-bounds.ts';

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The server's message, from an error body in any shape the transport reads; otherwise the start of the text. */
export function serverErrorMessage(text: string): string {
  const body = asOpenAIErrorBody(parseJson(text)) as { error?: { message?: unknown } | string } | null;
  const message =
    typeof body?.error === 'object' && typeof body.error.message === 'string'
      ? body.error.message
      : typeof body?.error === 'string'
        ? body.error
        : text.slice(0, 300);
  return message.replace(/\s+/g, ' ').trim();
}
