/**
 * Sending the probes: each with a time limit of its own, through the transport for a whole reply
 * and with fetch for a streamed one. What comes back is recorded as it is (the calls, whether they
 * were native or written as text, the error), and judged elsewhere (`verdicts.ts`).
 */
import { ModelError, type ModelErrorKind } from '../agent/model-error.ts';
import { readUpTo } from '../streams/read-up-to.ts';
import { readReply } from '../model-servers/wire-reply.ts';
import { parseJson, serverErrorMessage } from './error-body.ts';
import { fixFor } from '../model-servers/adaptation-rules.ts';
import type { ChatBody } from '../model-servers/openai-transport.ts';
import { offeredTools, probeBody, type ProbeName, type ReplyCap } from './probe-requests.ts';
import { type RawConnection, withTimeLimit } from './raw-connection.ts';

/** What a server did with one probe. */
export type ProbeOutcome =
  | {
      kind: 'reply';
      /** The names of the tools called, native calls first (none read from text when there are some). */
      calls: string[];
      /** The calls were written as text in the reply, not sent as `tool_calls`. */
      fromText: boolean;
      /** The visible text, thinking taken out. */
      text: string;
      /** Why the reply ended (`length`: cut at the probe's cap). */
      finishReason: string | null;
    }
  /** A streamed reply: whether tool calls came in its deltas. */
  | { kind: 'stream'; streamed: boolean; toolCallDeltas: boolean }
  /** The server answered with an error status. */
  | { kind: 'refused'; error: ModelError }
  /** No answer the doctor could read: no connection, the time limit, a garbled reply. */
  | { kind: 'no-answer'; reason: string };

/**
 * Sends one probe, its reply capped with `cap`, and records what came back; never throws. A server
 * that refuses the cap by name gets the probe once more without it.
 */
export async function sendProbe(
  connection: RawConnection,
  name: ProbeName,
  model: string,
  limitMs: number,
  signal: AbortSignal,
  cap: ReplyCap = 'max_tokens',
): Promise<ProbeOutcome> {
  const limited = withTimeLimit(signal, limitMs);
  const outcome = await sendBody(connection, probeBody(name, model, cap), name, limitMs, limited);
  if (
    outcome.kind !== 'refused' ||
    !fixFor(outcome.error, probeBody(name, model, cap), {})?.fixes.dropParams?.includes(cap)
  )
    return outcome;
  return sendBody(connection, probeBody(name, model, null), name, limitMs, limited);
}

async function sendBody(
  connection: RawConnection,
  body: ChatBody,
  name: ProbeName,
  limitMs: number,
  limited: AbortSignal,
): Promise<ProbeOutcome> {
  try {
    if (name === 'streaming') return await sendStreamed(connection, body, limited);
    const reply = readReply(await connection.transport.send(body, limited), {
      toolNames: offeredTools(body),
      shortIds: false,
      textProtocol: false,
    });
    return {
      kind: 'reply',
      calls: (reply.message.tool_calls ?? []).map((call) => call.function.name),
      fromText: reply.fromText,
      text: reply.message.content ?? '',
      finishReason: reply.finishReason,
    };
  } catch (error) {
    if (limited.aborted) return { kind: 'no-answer', reason: `no answer within ${limitMs / 1000} s` };
    if (error instanceof ModelError)
      return error.status === null ? { kind: 'no-answer', reason: error.message } : { kind: 'refused', error };
    return { kind: 'no-answer', reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * A streamed request, read as server-sent events: the transport reads replies whole, so this one
 * goes out with fetch (the same URL, key and headers). An error status is read as the transport
 * reads one, so that it is judged the same way.
 */
async function sendStreamed(connection: RawConnection, body: ChatBody, signal: AbortSignal): Promise<ProbeOutcome> {
  const response = await fetch(connection.url('/chat/completions'), {
    method: 'POST',
    headers: { ...connection.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    signal,
  });
  const { bytes } = await readUpTo(response.body ?? (async function* () {})(), 1024 * 1024);
  const text = bytes.toString('utf8');
  if (!response.ok) {
    const message = serverErrorMessage(text);
    return {
      kind: 'refused',
      error: new ModelError(statusKind(response.status, message), {
        status: response.status,
        detail: `model server answered ${response.status}: ${message}`,
        reply: { code: null, message, body: null },
      }),
    };
  }
  const streamed = (response.headers.get('content-type') ?? '').includes('text/event-stream');
  // A tool call in any delta will do: servers split them differently (Ollama sends each call whole).
  const toolCallDeltas = text.split('\n').some((line) => {
    const data = /^data:\s*(.*)$/.exec(line.trim())?.[1];
    if (!data || data === '[DONE]') return false;
    const chunk = parseJson(data) as { choices?: { delta?: { tool_calls?: unknown } }[] } | null;
    return (
      chunk?.choices?.some((choice) => Array.isArray(choice.delta?.tool_calls) && choice.delta.tool_calls.length > 0) ??
      false
    );
  });
  return { kind: 'stream', streamed, toolCallDeltas };
}

/** An error status as the transport would name it (`toModelError`), for the few that change the verdict. */
function statusKind(status: number, message: string): ModelErrorKind {
  if (status === 401 || status === 403) return 'bad-credentials';
  if (status === 404) return /model/i.test(message) ? 'model-not-found' : 'wrong-endpoint';
  if (status === 429) return 'rate-limited';
  return status >= 500 ? 'unavailable' : 'rejected';
}
