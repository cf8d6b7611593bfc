/**
 * The first question: does the server answer at all, does it take the key, and does it list the
 * model? `GET {baseURL}/models`, which costs nothing. Not every server has it (a 404 here is not
 * fatal: the first chat probe then says whether the model exists), and a list may leave models out
 * (Ollama takes `qwen3` for `qwen3:latest`): only a chat request's 404 makes a model unknown.
 */
import { connectionProblem } from '../agent/errors.ts';
import { readUpTo } from '../streams/read-up-to.ts';
import { parseJson, serverErrorMessage } from './error-body.ts';
import { type RawConnection, withTimeLimit } from './raw-connection.ts';

export type AccessOutcome =
  /** No HTTP answer: refused, reset, no such host, or nothing within the time limit. */
  | { kind: 'unreachable'; reason: string }
  | {
      kind: 'answered';
      status: number;
      /** The model ids listed, or null when the reply is not a model list. */
      models: string[] | null;
      /** The server's error message, for an error status. */
      message: string;
    };

/** A model list is kilobytes to a few megabytes (OpenRouter lists hundreds, with descriptions). */
const maxListBytes = 16 * 1024 * 1024;

/** `GET /models`, within `limitMs`; never throws. */
export async function probeAccess(
  connection: RawConnection,
  limitMs: number,
  signal: AbortSignal,
): Promise<AccessOutcome> {
  const limited = withTimeLimit(signal, limitMs);
  let response: Response;
  let text: string;
  try {
    response = await fetch(connection.url('/models'), { headers: connection.headers, signal: limited });
    const { bytes } = await readUpTo(response.body ?? emptyBody(), maxListBytes);
    text = bytes.toString('utf8');
  } catch (error) {
    if (limited.aborted && !signal.aborted)
      return { kind: 'unreachable', reason: `no answer within ${limitMs / 1000} s` };
    return { kind: 'unreachable', reason: connectionProblem(error) };
  }
  return {
    kind: 'answered',
    status: response.status,
    models: response.ok ? modelIds(parseJson(text)) : null,
    message: response.ok ? '' : serverErrorMessage(text),
  };
}

async function* emptyBody(): AsyncIterable<Uint8Array> {}

/** OpenAI's `{"data": [{"id": …}]}`, or null for anything else. */
function modelIds(json: unknown): string[] | null {
  const data = (json as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return null;
  return data.flatMap((entry: { id?: unknown } | null) => (typeof entry?.id === 'string' ? [entry.id] : []));
}
