/**
 * A `ModelClient` for one model server: the agent's requests in the form the server takes, and its
 * replies read back in the agent's terms, whatever its dialect. What the server needs is its
 * profile's fixes, plus those learned from its answers, remembered per server and model:
 * - a request refused for something its error names (a schema keyword, an id format, a parameter)
 *   is sent once more with that fixed;
 * - a reply that ignores the forced tool choice (plain text, or nothing) switches the server to the
 *   text protocol, and the same request is sent once more that way;
 * - a named choice answered with another tool is sent once more as "required" with that tool alone;
 * - Groq's `tool_use_failed` gives back what the model wrote: the call is read from it when it can
 *   be, and otherwise the problem goes to the model as an observation.
 * So a request is sent at most four times (a fix, a switch, a fix of the switched request), and nothing here loops.
 */
import type { Logger } from '../agent/logger.ts';
import type { ModelClient, ModelRequest, ModelResponse } from '../agent/model-client.ts';
import { ModelError } from '../agent/model-error.ts';
import { describeError } from '../errors.ts';
import type { ChatBody, ChatTransport } from './openai-transport.ts';
import type { ProviderProfile } from './profiles/profile.ts';
import { learnsNamedChoice, switchesToText } from './adaptation-rules.ts';
import { fixFor } from './request-fixes.ts';
import { describeFixes, mergeFixes, type ServerFixes, type ServerRecords, type ToolProtocol } from './server-fixes.ts';
import { findTextToolCalls } from './text-tool-calls.ts';
import { buildChatBody } from './wire-request.ts';
import { newCallId, readReply } from './wire-reply.ts';

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
}

export function createServerClient(options: ServerClientOptions): ModelClient {
  const { transport, server, model, profile, records, logger } = options;
  const fixesNow = (): ServerFixes => {
    const fixes = mergeFixes(profile.fixes, records.read(server, model)?.learned);
    if (options.toolProtocol !== 'auto') fixes.toolProtocol = options.toolProtocol;
    return fixes;
  };
  const learn = (fixes: ServerFixes, why: string) => {
    records.learn(server, model, fixes);
    logger.warn(
      { server, model, provider: profile.id, fixes: describeFixes(fixes) },
      `the model server ${why}: adapting, and remembering it for this server and model`,
    );
  };

  async function send(
    request: ModelRequest,
    fixes: ServerFixes,
    signal: AbortSignal,
  ): Promise<ModelResponse & { fromText: boolean }> {
    let current = fixes;
    let body = buildChatBody(request, options, current);
    let fixed = false;
    while (true) {
      let reply: unknown;
      try {
        reply = await transport.send(body, signal);
      } catch (error) {
        if (!(error instanceof ModelError)) throw error;
        const rejected = rejectedCall(error, request, current);
        if (rejected) return rejected;
        const fix = fixed ? null : fixFor(error, body, current);
        if (!fix) throw error;
        fixed = true;
        learn(fix.fixes, fix.why);
        current = mergeFixes(current, fix.fixes);
        body = buildChatBody(request, options, current);
        continue;
      }
      const response = read(reply, request, current);
      noticeCutPrompt(body, response);
      return response;
    }
  }

  /**
   * A server that read far fewer prompt tokens than were sent cut the prompt to fit its context
   * window. Ollama does it silently, from the start, where the system prompt and the tools are
   * (ollama/ollama#3839: HTTP 200, only a "truncating input prompt" line in its own log). The
   * operator is told once per process, with the profile's advice.
   */
  let toldCut = false;
  function noticeCutPrompt(body: ChatBody, response: ModelResponse): void {
    const read = response.usage?.promptTokens ?? 0;
    if (toldCut || read === 0) return;
    const sentAbout = Math.round(JSON.stringify([body.messages, body.tools ?? null]).length / 4);
    if (sentAbout < 3000 || read > sentAbout / 2) return;
    toldCut = true;
    logger.warn(
      {
        server,
        model,
        provider: profile.id,
        promptTokensSentAbout: sentAbout,
        promptTokensRead: read,
        advice: profile.advice,
      },
      'the model server read only part of the prompt: its context window is too small, and it may have cut the system prompt and the tools',
    );
  }

  return {
    model,
    async complete(request, signal) {
      const fixes = fixesNow();
      const first = await send(request, fixes, signal);
      const calls = first.message.tool_calls ?? [];
      if (first.rejectedCall !== undefined) return strip(first); // It did try to call: the model hears why it failed.
      if (
        calls.length === 0 &&
        switchesToText({ profile, toolProtocol: options.toolProtocol, fixes }, first.finishReason)
      ) {
        learn({ toolProtocol: 'text' }, 'answered without the tool call it was told to make');
        return strip(await send(request, mergeFixes(fixesNow(), { toolProtocol: 'text' }), signal));
      }
      const named = request.toolChoice === 'required' ? null : request.toolChoice.name;
      if (
        named &&
        calls.length > 0 &&
        !calls.some((call) => call.function.name === named) &&
        learnsNamedChoice({ profile, toolProtocol: options.toolProtocol, fixes })
      ) {
        learn({ namedChoice: 'required-with-one-tool' }, `called another tool when told to call ${named}`);
        return strip(await send(request, mergeFixes(fixesNow(), { namedChoice: 'required-with-one-tool' }), signal));
      }
      return strip(first);
    },
  };
}

/** The reply in the agent's terms; one of the wrong shape is the server's fault, and said so. */
function read(reply: unknown, request: ModelRequest, fixes: ServerFixes): ModelResponse & { fromText: boolean } {
  try {
    return readReply(reply, {
      toolNames: new Set(request.tools.map((tool) => tool.function.name)),
      shortIds: fixes.shortToolCallIds === true,
    });
  } catch (error) {
    if (error instanceof ModelError) throw error;
    throw new ModelError('invalid-response', {
      detail: `the response could not be read: ${describeError(error)}`,
      cause: error,
    });
  }
}

/** The reply without the reading's own flag. */
function strip({ fromText: _, ...reply }: ModelResponse & { fromText: boolean }): ModelResponse {
  return reply;
}

/**
 * Groq's 400 `tool_use_failed`, which carries what the model wrote in `failed_generation`
 * (huggingface/smolagents#1119): a call read from it is carried on; otherwise the loop gets the
 * text and the problem, to send back to the model as an observation.
 */
function rejectedCall(
  error: ModelError,
  request: ModelRequest,
  fixes: ServerFixes,
): (ModelResponse & { fromText: boolean }) | null {
  if (error.reply?.code !== 'tool_use_failed') return null;
  const body = error.reply.body as { failed_generation?: unknown } | null;
  const written = typeof body?.failed_generation === 'string' ? body.failed_generation : '';
  const names = new Set(request.tools.map((tool) => tool.function.name));
  const calls = findTextToolCalls(written, names);
  const base = { usage: null, finishReason: 'tool_use_failed', model: '', fromText: true };
  if (calls.length > 0)
    return {
      ...base,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: calls.map((call) => ({
          id: newCallId(fixes.shortToolCallIds === true),
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      },
    };
  return {
    ...base,
    message: { role: 'assistant', content: written === '' ? null : written },
    rejectedCall: `the server could not read your tool call (${error.reply.message})`,
  };
}
