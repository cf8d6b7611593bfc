/**
 * The requests the doctor sends to the raw server, one per capability. Each is as small as it can
 * be and asks for one thing only, so that a refusal names that thing: the tool schemas carry no
 * `strict` and no `additionalProperties` except in the strict probe (Gemini refuses both, and would
 * otherwise refuse every probe), and no `temperature` is sent (some models take only their default).
 * The instructions are written so that a model left free by the server does something else than
 * what the tool choice asks: a gap shows as a different reply, not as a lucky match.
 */
import type { ChatBody } from '../model-servers/openai-transport.ts';

/** The capabilities probed with a chat request, in the order the report lists them. */
export type ProbeName = 'required' | 'named' | 'strict' | 'parallel' | 'images' | 'streaming';

const valueSchema = {
  type: 'object',
  properties: { value: { type: 'string', description: 'Any short text.' } },
  required: ['value'],
};

const tool = (name: string, description: string, extra: Record<string, unknown> = {}) => ({
  type: 'function',
  function: { name, description, parameters: valueSchema, ...extra },
});

const ping = tool('ping', 'Answers pong with the value it is given.');
/** The tool a named choice asks for, while the message asks for ping. */
export const namedTool = 'pong';
const pong = tool(namedTool, 'Answers ping with the value it is given.');
const strictPing = tool('ping', 'Answers pong with the value it is given.', {
  parameters: { ...valueSchema, additionalProperties: false },
  strict: true,
});

/** An 8×8 red PNG: small enough to cost nothing, large enough for servers with a minimum size. */
const tinyPng =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEUlEQVR42mO4q6SEFTEMLQkAaixIQekd3E0AAAAASUVORK5CYII=';

const user = (content: unknown) => [{ role: 'user', content }];

/**
 * The most a probe's reply may take: room for two calls (or a short thought and a call), and an
 * end in a few seconds even where the model writes on until it is stopped. Without it a model the
 * server leaves free writes to the end of its context (about 45 s on a CPU with llama-server's
 * default 2,048 tokens, issue 38), past the probe's time limit, and the server goes on writing
 * after the doctor has gone.
 */
export const probeReplyTokens = 256;

/**
 * The field that caps a reply. OpenAI's API deprecated `max_tokens` for `max_completion_tokens`,
 * which its reasoning models require (platform.openai.com/docs/api-reference/chat/create); the
 * servers people run read `max_tokens` (llama.cpp's tools/server/README.md, Ollama's
 * docs/api/openai-compatibility.mdx, vLLM's OpenAI-compatible server).
 */
export type ReplyCap = 'max_tokens' | 'max_completion_tokens';

export function replyCapFor(providerId: string): ReplyCap {
  return providerId === 'openai' || providerId === 'azure' ? 'max_completion_tokens' : 'max_tokens';
}

/** The body of each probe for `model`, its reply capped with `cap` (none: uncapped). */
export function probeBody(name: ProbeName, model: string, cap: ReplyCap | null = 'max_tokens'): ChatBody {
  const body = uncappedBody(name, model);
  return cap === null ? body : { ...body, [cap]: probeReplyTokens };
}

function uncappedBody(name: ProbeName, model: string): ChatBody {
  switch (name) {
    case 'required':
      // The message invites plain text: only a server that enforces "required" gets a call.
      return {
        model,
        messages: user('Reply in plain text: describe a red square.'),
        tools: [ping],
        tool_choice: 'required',
      };
    case 'named':
      // The message asks for ping, the choice names pong: pong is called only where the choice is enforced.
      return {
        model,
        messages: user('Call ping with {"value":"named"}.'),
        tools: [ping, pong],
        tool_choice: { type: 'function', function: { name: namedTool } },
      };
    case 'strict':
      return {
        model,
        messages: user('Call ping with {"value":"strict"}.'),
        tools: [strictPing],
        tool_choice: 'required',
      };
    case 'parallel':
      // Without `parallel_tool_calls`, as the bot asks: what a run gets, not what a server can do
      // when asked (llama.cpp makes several calls only when asked, docs/function-calling.md).
      return {
        model,
        messages: user('Call ping with {"value":"a"} and Call ping with {"value":"b"}, both in this one reply.'),
        tools: [ping],
        tool_choice: 'required',
      };
    case 'images':
      return {
        model,
        messages: user([
          { type: 'text', text: 'Describe this image in one word.' },
          { type: 'image_url', image_url: { url: tinyPng } },
        ]),
      };
    case 'streaming':
      return {
        model,
        messages: user('Call ping with {"value":"stream"}.'),
        tools: [ping],
        tool_choice: 'required',
        stream: true,
      };
  }
}

/** The tools a probe offers, by name (a call written as text counts only if it names one). */
export function offeredTools(body: ChatBody): Set<string> {
  const tools = (body.tools ?? []) as { function: { name: string } }[];
  return new Set(tools.map((spec) => spec.function.name));
}
