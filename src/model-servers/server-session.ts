/**
 * One request to a model server, sent with the fixes in effect and read back: the lower half of
 * server-client.ts, which decides what to send again when a reply ignores the tool choice.
 * - a streamed reply cut mid-way is asked for once more;
 * - a refusal whose error names a fix (adaptation-rules.ts) is sent once more with it, and the fix
 *   remembered; a streamed request answered without a stream is sent once more without,
 *   remembered only when it happens twice in a row;
 * - Groq's `tool_use_failed` gives back what the model wrote: the call is read from it when it can
 *   be, and otherwise the problem goes to the model as an observation.
 */
import type { Logger } from '../agent/logger.ts';
import type { ModelCallObserver, ModelRequest, ModelResponse } from '../agent/model-client.ts';
import { ModelError } from '../agent/model-error.ts';
import { describeError } from '../agent/errors.ts';
import { type Adapting, fixFor } from './adaptation-rules.ts';
import { type ChatBody, type ChatTransport, noStreamCode } from './openai-transport.ts';
import type { ProviderProfile } from './profiles/profile.ts';
import { describeFixes, mergeFixes, type ServerFixes, type ToolProtocol } from './server-fixes.ts';
import type { ServerRecords } from './server-records.ts';
import { findTextToolCalls } from './text-tool-calls.ts';
import { buildChatBody } from './wire-request.ts';
import { callsFromText, type ReadReply, readReply } from './wire-reply.ts';

/** Streamed requests in a row answered without a stream before the server is read whole for good. */
const unstreamedToLearn = 2;

export interface ServerClientOptions {
  transport: ChatTransport;
  /** The server as remembered: its base URL. */
  server: string;
  model: string;
  temperature: number;
  profile: ProviderProfile;
  records: ServerRecords;
  /** `auto` learns; `native` and `text` are the operator's choice, never changed. */
  toolProtocol: ToolProtocol | 'auto';
  logger: Logger;
  /** To keep the key out of what is logged of the URL. */
  apiKey: string | null;
}

/** One server and model as a client speaks to it, and what it noticed of the server in this process. */
export interface ServerSession {
  options: ServerClientOptions;
  /** The base URL as logged: without the key. */
  shown: string;
  /** Whether the operator was told the server cuts the prompt (once per process is enough). */
  toldCut: boolean;
  /** Streamed requests in a row answered without a stream (one that streams sets it back to 0). */
  unstreamed: number;
}

/** A reply, and the fixes its request was sent with in the end. */
export interface Sent {
  reply: ReadReply;
  fixes: ServerFixes;
}

/** The fixes in effect: the profile's, those learned of this server and model, and the operator's protocol. */
export function fixesNow({ profile, records, server, model, toolProtocol }: ServerClientOptions): ServerFixes {
  const fixes = mergeFixes(profile.fixes, records.read(server, model)?.learned);
  if (toolProtocol !== 'auto') fixes.toolProtocol = toolProtocol;
  return fixes;
}

/** Remembers a fix for this server and model, and tells the operator why. */
export function learn({ options, shown }: ServerSession, fixes: ServerFixes, why: string): void {
  const { records, server, model, profile, logger } = options;
  records.learn(server, model, fixes);
  logger.warn(
    { server: shown, model, provider: profile.id, fixes: describeFixes(fixes) },
    `the model server ${why}: adapting, and remembering it for this server and model`,
  );
}

/** What the reply rules (adaptation-rules.ts) weigh, under these fixes. */
export function adapting({ options }: ServerSession, fixes: ServerFixes): Adapting {
  return { profile: options.profile, toolProtocol: options.toolProtocol, fixes };
}

/** One request as it goes: the fixes it is sent with, and the retries it has had. */
interface Attempt {
  fixes: ServerFixes;
  fixed: boolean;
  streamRetried: boolean;
}

/** Sends the request; a refusal whose error names a fix is sent once more with it, and the fix remembered. */
export async function send(
  session: ServerSession,
  request: ModelRequest,
  fixes: ServerFixes,
  signal: AbortSignal,
  observe?: ModelCallObserver,
): Promise<Sent> {
  const attempt: Attempt = { fixes, fixed: false, streamRetried: false };
  const { model, temperature } = session.options;
  const build = () =>
    buildChatBody(request, { model, temperature, stream: streams(session, attempt.fixes, observe) }, attempt.fixes);
  let body = build();
  while (true) {
    let reply: unknown;
    try {
      reply = await session.options.transport.send(body, signal, (grown) => {
        for (const call of grown) observe?.toolArguments?.(call);
      });
    } catch (error) {
      const next = afterFailure(session, error, { request, body, signal, attempt });
      if (next === 'fixed') body = build();
      else if (next !== 'again') return { reply: next, fixes: attempt.fixes };
      continue;
    }
    if (body.stream === true) session.unstreamed = 0;
    const read = readIn(reply, request, attempt.fixes);
    noticeCutPrompt(session, body, read);
    return { reply: read, fixes: attempt.fixes };
  }
}

/**
 * Whether to stream: when the caller watches the reply, unless the server is known not to stream
 * tool calls. In the text protocol no tools are sent: any server streams plain text (the calls
 * are followed in it as it is written).
 */
function streams({ options }: ServerSession, fixes: ServerFixes, observe: ModelCallObserver | undefined): boolean {
  return (
    observe?.toolArguments !== undefined &&
    fixes.streaming !== false &&
    (fixes.toolProtocol === 'text' || options.profile.honours.streamingToolCalls !== 'no')
  );
}

/**
 * What follows a failed attempt: `again` (the same request once more), `fixed` (the fix its error
 * names is added to the attempt's fixes, remembered as the case may be), or a reply read from the
 * error. Throws the error when nothing follows.
 */
function afterFailure(
  session: ServerSession,
  error: unknown,
  sent: { request: ModelRequest; body: ChatBody; signal: AbortSignal; attempt: Attempt },
): 'again' | 'fixed' | ReadReply {
  const { request, body, signal, attempt } = sent;
  const { shown, options } = session;
  if (!(error instanceof ModelError)) throw error;
  // A streamed reply cut mid-way (or one the server could not give) is asked for once more.
  const cut = error.kind === 'unavailable' && error.status === null && body.stream === true;
  if (cut && !attempt.streamRetried && !signal.aborted) {
    attempt.streamRetried = true;
    options.logger.warn(
      { server: shown, model: options.model, err: error },
      'the streamed reply failed: asking once more',
    );
    return 'again';
  }
  const rejected = rejectedCall(error, request, attempt.fixes);
  if (rejected) return rejected;
  const fix = attempt.fixed ? null : fixFor(error, body, attempt.fixes);
  if (!fix) throw error;
  attempt.fixed = true;
  // One reply that held no event may be a fluke (a buffering proxy joins events, and the client
  // reads none); a server that ignores `stream` does it every time.
  if (error.reply?.code === noStreamCode && ++session.unstreamed < unstreamedToLearn)
    options.logger.warn(
      { server: shown, model: options.model },
      'the model server answered a streamed request without a stream: asking again without (remembered if it does so again)',
    );
  else learn(session, fix.fixes, fix.why);
  attempt.fixes = mergeFixes(attempt.fixes, fix.fixes);
  return 'fixed';
}

/** The reply in the agent's terms; one of the wrong shape is the server's fault, and said so. */
function readIn(reply: unknown, request: ModelRequest, fixes: ServerFixes): ReadReply {
  try {
    let toolNames: Set<string> | undefined;
    return readReply(reply, {
      // Wanted only when the reply has no native call (calls written as text are looked for).
      get toolNames() {
        return (toolNames ??= new Set(request.tools.map((tool) => tool.function.name)));
      },
      shortIds: fixes.shortToolCallIds === true,
      textProtocol: fixes.toolProtocol === 'text',
    });
  } catch (error) {
    if (error instanceof ModelError) throw error;
    throw new ModelError('invalid-response', {
      detail: `the response could not be read: ${describeError(error)}`,
      cause: error,
    });
  }
}

/**
 * A server that read far fewer prompt tokens than were sent cut the prompt to fit its context
 * window. Only a server whose profile says it cuts (`cutsLongPrompts`) is watched: any other
 * refuses a prompt too long with an error, which says so itself. Ollama does it silently, from the start, where the system prompt and the tools are
 * (ollama/ollama#3839: HTTP 200, only a "truncating input prompt" line in its own log). The
 * operator is told once per process, with the profile's advice.
 */
function noticeCutPrompt(session: ServerSession, body: ChatBody, response: ModelResponse): void {
  const read = response.usage?.promptTokens ?? 0;
  // Weighing what was sent serialises the whole request once more: only for a server that cuts.
  if (session.toldCut || read === 0 || session.options.profile.cutsLongPrompts !== true) return;
  const sentAbout = Math.round(JSON.stringify([body.messages, body.tools ?? null]).length / 4);
  if (sentAbout < 3000 || read > sentAbout / 2) return;
  session.toldCut = true;
  const { model, profile, logger } = session.options;
  logger.warn(
    {
      server: session.shown,
      model,
      provider: profile.id,
      promptTokensSentAbout: sentAbout,
      promptTokensRead: read,
      advice: profile.advice,
    },
    'the model server read only part of the prompt: its context window is too small, and it may have cut the system prompt and the tools',
  );
}

/**
 * Groq's 400 `tool_use_failed`, which carries what the model wrote in `failed_generation`
 * (huggingface/smolagents#1119): a call read from it is carried on; otherwise the loop gets the
 * text and the problem, to send back to the model as an observation.
 */
function rejectedCall(error: ModelError, request: ModelRequest, fixes: ServerFixes): ReadReply | null {
  if (error.reply?.code !== 'tool_use_failed') return null;
  const body = error.reply.body as { failed_generation?: unknown } | null;
  const written = typeof body?.failed_generation === 'string' ? body.failed_generation : '';
  // What the model wrote when it meant to call: a ```json block alone is a call too.
  const calls = findTextToolCalls(written, new Set(request.tools.map((tool) => tool.function.name)), {
    fenced: true,
  });
  const base = { usage: null, finishReason: 'tool_use_failed', model: '', fromText: true };
  if (calls.length > 0)
    return {
      ...base,
      message: { role: 'assistant', content: null, tool_calls: callsFromText(calls, fixes.shortToolCallIds === true) },
    };
  return {
    ...base,
    message: { role: 'assistant', content: written === '' ? null : written },
    rejectedCall: `the server could not read your tool call (${error.reply.message})`,
  };
}
