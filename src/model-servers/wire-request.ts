/**
 * The request body a server is sent: the agent's request in the chat-completions shape, with the
 * server's fixes applied (its profile's and those learned from its answers).
 */
import { createHash } from 'node:crypto';
import type { ChatMessage, ToolCall } from '../agent/messages.ts';
import type { FunctionSpec, ModelRequest } from '../agent/model-client.ts';
import { mapSchema } from '../agent/schema-walk.ts';
import type { ChatBody } from './openai-transport.ts';
import type { ServerFixes } from './server-fixes.ts';
import { toTextTranscript } from './text-protocol.ts';

export function buildChatBody(
  request: ModelRequest,
  settings: { model: string; temperature: number },
  fixes: ServerFixes,
): ChatBody {
  const body: ChatBody =
    fixes.toolProtocol === 'text'
      ? {
          model: settings.model,
          messages: toTextTranscript(request.messages, request.tools, request.toolChoice),
          temperature: settings.temperature,
        }
      : { model: settings.model, ...nativeTools(request, fixes), temperature: settings.temperature };
  Object.assign(body, fixes.extraBody);
  for (const param of fixes.dropParams ?? []) delete body[param];
  return body;
}

function nativeTools(request: ModelRequest, fixes: ServerFixes): { messages: unknown[] } & Record<string, unknown> {
  // Most requests need no rewrite: the messages go as they are (this runs at every model call).
  const rewrite =
    fixes.shortToolCallIds || fixes.reasoningBack === 'reasoning_content' || request.messages.some(carriesExtras);
  const messages = rewrite ? request.messages.map((message) => wireMessage(message, fixes)) : [...request.messages];
  const specs = request.tools.map((spec) => wireSpec(spec, fixes.dropSchemaKeywords ?? []));
  const choice = request.toolChoice;
  if (choice === 'required') return { messages, tools: specs, tool_choice: 'required' };
  if (fixes.namedChoice === 'required-with-one-tool')
    return { messages, tools: specs.filter((spec) => spec.function.name === choice.name), tool_choice: 'required' };
  return { messages, tools: specs, tool_choice: { type: 'function', function: { name: choice.name } } };
}

/** A message with fields only some servers take: reasoning, or a call's `extra_content`. */
function carriesExtras(message: ChatMessage): boolean {
  return (
    message.role === 'assistant' &&
    (message.reasoning !== undefined || (message.tool_calls ?? []).some((call) => call.extra_content !== undefined))
  );
}

function wireMessage(message: ChatMessage, fixes: ServerFixes): unknown {
  const id = fixes.shortToolCallIds ? shortToolCallId : (value: string) => value;
  if (message.role === 'tool') return { ...message, tool_call_id: id(message.tool_call_id) };
  if (message.role !== 'assistant') return message;
  const { reasoning, tool_calls: calls, ...rest } = message;
  const wire: Record<string, unknown> = { ...rest };
  if (calls) wire.tool_calls = calls.map((call) => wireCall(call, fixes, id));
  if (fixes.reasoningBack === 'reasoning_content' && calls?.length) wire.reasoning_content = reasoning ?? '';
  return wire;
}

function wireCall(call: ToolCall, fixes: ServerFixes, id: (value: string) => string): unknown {
  const { extra_content: extra, ...rest } = call;
  return { ...rest, id: id(call.id), ...(fixes.keepExtraContent && extra ? { extra_content: extra } : {}) };
}

function wireSpec(spec: FunctionSpec, dropped: readonly string[]): FunctionSpec {
  if (dropped.length === 0) return spec;
  const drop = new Set(dropped);
  const parameters = mapSchema(spec.function.parameters, (node) =>
    Object.fromEntries(Object.entries(node).filter(([key]) => !drop.has(key))),
  ) as Record<string, unknown>;
  const fn: Record<string, unknown> = { ...spec.function, parameters };
  if (drop.has('strict')) delete fn.strict;
  return { ...spec, function: fn as FunctionSpec['function'] };
}

const alphanumeric = /^[A-Za-z0-9]{9}$/;
const digits = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * A tool-call id as Mistral takes them, nine letters or digits ("Tool call id was … but must be
 * a-z, A-Z, 0-9, with a length of 9.": langchain-ai/langchain#24668): ids already so are kept, others
 * hashed, the same id always to the same short one, so calls and their results still pair up.
 */
export function shortToolCallId(id: string): string {
  if (alphanumeric.test(id)) return id;
  const hash = createHash('sha256').update(id).digest();
  return [...hash.subarray(0, 9)].map((byte) => digits[byte % digits.length]).join('');
}
