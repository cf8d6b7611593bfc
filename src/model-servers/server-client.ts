/**
 * A `ModelClient` for one model server: the agent's requests in the form the server takes, and its
 * replies read back in the agent's terms, whatever its dialect. What the server needs is its
 * profile's fixes, plus those learned from its answers, remembered per server and model:
 * - a request refused for something its error names (a schema keyword, an id format, a parameter)
 *   is sent once more with that fixed, and the fix remembered; a streamed request answered without
 *   a stream is sent once more without, remembered only when it happens twice in a row;
 * - a reply that ignores the forced tool choice (plain text, or nothing) has the same request sent
 *   once more in the text protocol; the switch is remembered only if that reply did call a tool
 *   (one odd reply must not move a good server off its native tools for good);
 * - a named choice answered with another tool is sent once more as "required" with that tool alone;
 * - Groq's `tool_use_failed` gives back what the model wrote: the call is read from it when it can
 *   be, and otherwise the problem goes to the model as an observation.
 * So a request is sent at most four times (a fix, a switch, a fix of the switched request), and
 * nothing here loops. The tokens of every reply are counted, the discarded ones too.
 */
import type { Logger } from '../agent/logger.ts';
import { addUsage } from '../agent/messages.ts';
import type { ModelCallObserver, ModelClient, ModelRequest, ModelResponse } from '../agent/model-client.ts';
import { ModelError } from '../agent/model-error.ts';
import { describeError } from '../agent/errors.ts';
import { fixFor, learnsNamedChoice, switchesToText } from './adaptation-rules.ts';
import { type ChatBody, type ChatTransport, noStreamCode, shownURL } from './openai-transport.ts';
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

/** A reply, and the fixes its request was sent with in the end. */
interface Sent {
  reply: ReadReply;
  fixes: ServerFixes;
}

export function createServerClient(options: ServerClientOptions): ModelClient {
  const { transport, server, model, profile, records, logger } = options;
  const shown = shownURL(server, options.apiKey);
  /** Whether the operator was told the server cuts the prompt (once per process is enough). */
  let toldCut = false;
  /** Streamed requests in a row answered without a stream (one that streams sets it back to 0). */
  let unstreamed = 0;
  const fixesNow = (): ServerFixes => {
    const fixes = mergeFixes(profile.fixes, records.read(server, model)?.learned);
    if (options.toolProtocol !== 'auto') fixes.toolProtocol = options.toolProtocol;
    return fixes;
  };
  const learn = (fixes: ServerFixes, why: string) => {
    records.learn(server, model, fixes);
    logger.warn(
      { server: shown, model, provider: profile.id, fixes: describeFixes(fixes) },
      `the model server ${why}: adapting, and remembering it for this server and model`,
    );
  };
  const adapting = (fixes: ServerFixes) => ({ profile, toolProtocol: options.toolProtocol, fixes });

  /**
   * Whether to stream: when the caller watches the reply, unless the server is known not to stream
   * tool calls. In the text protocol no tools are sent: any server streams plain text (the calls
   * are followed in it as it is written).
   */
  const streams = (fixes: ServerFixes, observe: ModelCallObserver | undefined) =>
    observe?.toolArguments !== undefined &&
    fixes.streaming !== false &&
    (fixes.toolProtocol === 'text' || profile.honours.streamingToolCalls !== 'no');

  /** Sends the request; a refusal whose error names a fix is sent once more with it, and the fix remembered. */
  async function send(
    request: ModelRequest,
    fixes: ServerFixes,
    signal: AbortSignal,
    observe?: ModelCallObserver,
  ): Promise<Sent> {
    let current = fixes;
    const build = () => buildChatBody(request, { ...options, stream: streams(current, observe) }, current);
    let body = build();
    let fixed = false;
    let streamRetried = false;
    while (true) {
      let reply: unknown;
      try {
        reply = await transport.send(body, signal, (grown) => {
          for (const call of grown) observe?.toolArguments?.(call);
        });
      } catch (error) {
        if (!(error instanceof ModelError)) throw error;
        // A streamed reply cut mid-way (or one the server could not give) is asked for once more.
        if (
          error.kind === 'unavailable' &&
          error.status === null &&
          body.stream === true &&
          !streamRetried &&
          !signal.aborted
        ) {
          streamRetried = true;
          logger.warn({ server: shown, model, err: error }, 'the streamed reply failed: asking once more');
          continue;
        }
        const rejected = rejectedCall(error, request, current);
        if (rejected) return { reply: rejected, fixes: current };
        const fix = fixed ? null : fixFor(error, body, current);
        if (!fix) throw error;
        fixed = true;
        // One reply that held no event may be a fluke (a buffering proxy joins events, and the
        // client reads none); a server that ignores `stream` does it every time.
        if (error.reply?.code === noStreamCode && ++unstreamed < unstreamedToLearn)
          logger.warn(
            { server: shown, model },
            'the model server answered a streamed request without a stream: asking again without (remembered if it does so again)',
          );
        else learn(fix.fixes, fix.why);
        current = mergeFixes(current, fix.fixes);
        body = build();
        continue;
      }
      if (body.stream === true) unstreamed = 0;
      const read = readIn(reply, request, current);
      noticeCutPrompt(body, read);
      return { reply: read, fixes: current };
    }
  }

  return {
    model,
    async complete(request, signal, observe) {
      const first = await send(request, fixesNow(), signal, observe);
      const calls = first.reply.message.tool_calls ?? [];
      // It did try to call: the model hears why that failed.
      if (first.reply.rejectedCall !== undefined) return strip(first.reply);
      if (calls.length === 0 && switchesToText(adapting(first.fixes), first.reply.finishReason)) {
        const again = await send(request, mergeFixes(first.fixes, { toolProtocol: 'text' }), signal, observe);
        if (again.reply.message.tool_calls?.length)
          learn({ toolProtocol: 'text' }, 'answered without the tool call it was told to make');
        return strip(again.reply, first.reply);
      }
      const named = request.toolChoice === 'required' ? null : request.toolChoice.name;
      if (
        named &&
        calls.length > 0 &&
        !calls.some((call) => call.function.name === named) &&
        learnsNamedChoice(adapting(first.fixes))
      ) {
        learn({ namedChoice: 'required-with-one-tool' }, `called another tool when told to call ${named}`);
        const again = await send(
          request,
          mergeFixes(first.fixes, { namedChoice: 'required-with-one-tool' }),
          signal,
          observe,
        );
        return strip(again.reply, first.reply);
      }
      return strip(first.reply);
    },
  };

  /**
   * A server that read far fewer prompt tokens than were sent cut the prompt to fit its context
   * window. Ollama does it silently, from the start, where the system prompt and the tools are
   * (ollama/ollama#3839: HTTP 200, only a "truncating input prompt" line in its own log). The
   * operator is told once per process, with the profile's advice.
   */
  function noticeCutPrompt(body: ChatBody, response: ModelResponse): void {
    const read = response.usage?.promptTokens ?? 0;
    if (toldCut || read === 0) return;
    const sentAbout = Math.round(JSON.stringify([body.messages, body.tools ?? null]).length / 4);
    if (sentAbout < 3000 || read > sentAbout / 2) return;
    toldCut = true;
    logger.warn(
      {
        server: shown,
        model,
        provider: profile.id,
        promptTokensSentAbout: sentAbout,
        promptTokensRead: read,
        advice: profile.advice,
      },
      'the model server read only part of the prompt: its context window is too small, and it may have cut the system prompt and the tools',
    );
  }
}

/** The reply in the agent's terms; one of the wrong shape is the server's fault, and said so. */
function readIn(reply: unknown, request: ModelRequest, fixes: ServerFixes): ReadReply {
  try {
    return readReply(reply, {
      toolNames: new Set(request.tools.map((tool) => tool.function.name)),
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

/** The reply for the loop, its usage counting a reply sent before it and discarded (it was spent). */
function strip({ fromText: _, ...reply }: ReadReply, discarded?: ReadReply): ModelResponse {
  if (!discarded?.usage) return reply;
  return { ...reply, usage: addUsage(discarded.usage, reply.usage) };
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
