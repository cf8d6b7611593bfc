/**
 * The request body a server is sent: the agent's request in the chat-completions shape, with the
 * server's fixes applied (its profile's and those learned from its answers).
 */
import { createHash } from 'node:crypto';
import { type ChatMessage, type ToolCall, userText } from '../agent/messages.ts';
import type { FunctionSpec, ModelRequest } from '../agent/model-client.ts';
import { mapSchema, type SchemaNode } from '../agent/schema-walk.ts';
import type { ChatBody } from './openai-transport.ts';
import type { ServerFixes } from './server-fixes.ts';
import { toTextTranscript } from './text-protocol.ts';
import { shortToolCallId } from './tool-call-ids.ts';

export function buildChatBody(
  given: ModelRequest,
  settings: { model: string; temperature: number; stream?: boolean },
  fixes: ServerFixes,
): ChatBody {
  const request = fixes.images === false ? { ...given, messages: given.messages.map(withoutImages) } : given;
  const body: ChatBody =
    fixes.toolProtocol === 'text'
      ? {
          model: settings.model,
          messages: toTextTranscript(request.messages, request.tools, request.toolChoice),
          temperature: settings.temperature,
        }
      : { model: settings.model, ...nativeTools(request, fixes), temperature: settings.temperature };
  // Usage in the stream's last chunk, where the server supports it (OpenAI's stream_options).
  if (settings.stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
  // One key per conversation, so that its requests reach the machine that holds its prefix
  // (https://platform.openai.com/docs/guides/prompt-caching): hashed, the conversation's ids stay here.
  if (fixes.promptCacheKey && request.cacheKey)
    body.prompt_cache_key = createHash('sha256').update(request.cacheKey).digest('hex').slice(0, 32);
  Object.assign(body, fixes.extraBody);
  for (const param of fixes.dropParams ?? []) delete body[param];
  return body;
}

function nativeTools(request: ModelRequest, fixes: ServerFixes): { messages: unknown[] } & Record<string, unknown> {
  // Most requests need no rewrite: the messages go as they are (this runs at every model call).
  const rewrite =
    fixes.shortToolCallIds || fixes.reasoningBack === 'reasoning_content' || request.messages.some(carriesExtras);
  const messages = rewrite ? request.messages.map((message) => wireMessage(message, fixes)) : [...request.messages];
  const specs = request.tools.map((spec) => wireSpec(spec, fixes));
  const choice = request.toolChoice;
  if (choice === 'required') return { messages, tools: specs, tool_choice: 'required' };
  if (fixes.namedChoice === 'required-with-one-tool')
    return { messages, tools: specs.filter((spec) => spec.function.name === choice.name), tool_choice: 'required' };
  return { messages, tools: specs, tool_choice: { type: 'function', function: { name: choice.name } } };
}

/** A user message's images as text, for a model that refused them (their names are in its text parts). */
function withoutImages(message: ChatMessage): ChatMessage {
  if (message.role !== 'user' || typeof message.content === 'string') return message;
  const shown = message.content.some((part) => part.type === 'image_url');
  if (!shown) return message;
  return {
    role: 'user',
    content: [userText(message.content), '[The images above are not shown: this model cannot see images.]'].join('\n'),
  };
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

function wireSpec(spec: FunctionSpec, fixes: ServerFixes): FunctionSpec {
  if (!fixes.dropSchemaKeywords?.length && !fixes.collapseTypeLists) return spec;
  const drop = new Set(fixes.dropSchemaKeywords);
  const parameters = mapSchema(spec.function.parameters, (node) => {
    const out = fixes.collapseTypeLists ? oneType(node) : node;
    // `const: x` means `enum: [x]`: kept, in the form the server takes.
    if (drop.has('const') && 'const' in out && !('enum' in out)) out.enum = [out.const];
    return Object.fromEntries(Object.entries(out).filter(([key]) => !drop.has(key)));
  }) as Record<string, unknown>;
  const fn: Record<string, unknown> = { ...spec.function, parameters };
  if (drop.has('strict')) delete fn.strict;
  return { ...spec, function: fn as FunctionSpec['function'] };
}

/**
 * `type: ["string", "null"]` as OpenAPI writes it, `type: "string", nullable: true` (Gemini takes no
 * list there: "Proto field is not repeating, cannot start list.", zed-industries/zed#53919); several
 * types besides null become an `anyOf` of one each.
 */
function oneType(node: SchemaNode): SchemaNode {
  if (!Array.isArray(node.type)) return { ...node };
  const types = (node.type as unknown[]).filter((type) => type !== 'null');
  const nullable = types.length < (node.type as unknown[]).length ? { nullable: true } : {};
  const { type: _, ...rest } = node;
  if (types.length === 1) return { ...rest, type: types[0], ...nullable };
  return { ...rest, anyOf: types.map((type) => ({ type })), ...nullable };
}
