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
 * nothing here loops. The tokens of every reply are counted, the discarded ones too. The first and
 * the last are done in sending one request (server-session.ts); the two resends are here.
 */
import { addUsage } from '../agent/messages.ts';
import type { ModelCallObserver, ModelClient, ModelRequest, ModelResponse } from '../agent/model-client.ts';
import { learnsNamedChoice, switchesToText } from './adaptation-rules.ts';
import { shownURL } from './openai-transport.ts';
import { mergeFixes } from './server-fixes.ts';
import {
  adapting,
  fixesNow,
  learn,
  send,
  type Sent,
  type ServerClientOptions,
  type ServerSession,
} from './server-session.ts';
import type { ReadReply } from './wire-reply.ts';

export function createServerClient(options: ServerClientOptions): ModelClient {
  const session: ServerSession = {
    options,
    shown: shownURL(options.server, options.apiKey),
    toldCut: false,
    unstreamed: 0,
  };
  return {
    model: options.model,
    async complete(request, signal, observe) {
      const first = await send(session, request, fixesNow(options), signal, observe);
      // It did try to call: the model hears why that failed.
      if (first.reply.rejectedCall !== undefined) return strip(first.reply);
      const turn: Turn = { session, request, signal, observe, first };
      return (await againInText(turn)) ?? (await againWithOneTool(turn)) ?? strip(first.reply);
    },
  };
}

/** A request answered, and what is needed to send it once more. */
interface Turn {
  session: ServerSession;
  request: ModelRequest;
  signal: AbortSignal;
  observe: ModelCallObserver | undefined;
  first: Sent;
}

/**
 * A reply without the call it was told to make: the request sent once more in the text protocol
 * (`switchesToText`), remembered only if that reply did call a tool. Null when the rule does not apply.
 */
async function againInText({ session, request, signal, observe, first }: Turn): Promise<ModelResponse | null> {
  const calls = first.reply.message.tool_calls ?? [];
  const reply = { finishReason: first.reply.finishReason, text: first.reply.message.content ?? '' };
  if (calls.length > 0 || !switchesToText(adapting(session, first.fixes), reply)) return null;
  const again = await send(session, request, mergeFixes(first.fixes, { toolProtocol: 'text' }), signal, observe);
  if (again.reply.message.tool_calls?.length)
    learn(session, { toolProtocol: 'text' }, 'answered without the tool call it was told to make');
  return strip(again.reply, first.reply);
}

/**
 * A named choice answered with another tool: remembered, and the request sent once more as
 * "required" with that tool alone (`learnsNamedChoice`). Null when the rule does not apply.
 */
async function againWithOneTool({ session, request, signal, observe, first }: Turn): Promise<ModelResponse | null> {
  const calls = first.reply.message.tool_calls ?? [];
  const named = request.toolChoice === 'required' ? null : request.toolChoice.name;
  if (
    !named ||
    calls.length === 0 ||
    calls.some((call) => call.function.name === named) ||
    !learnsNamedChoice(adapting(session, first.fixes))
  )
    return null;
  learn(session, { namedChoice: 'required-with-one-tool' }, `called another tool when told to call ${named}`);
  const again = await send(
    session,
    request,
    mergeFixes(first.fixes, { namedChoice: 'required-with-one-tool' }),
    signal,
    observe,
  );
  return strip(again.reply, first.reply);
}

/** The reply for the loop, its usage counting a reply sent before it and discarded (it was spent). */
function strip({ fromText: _, ...reply }: ReadReply, discarded?: ReadReply): ModelResponse {
  if (!discarded?.usage) return reply;
  return { ...reply, usage: addUsage(discarded.usage, reply.usage) };
}
