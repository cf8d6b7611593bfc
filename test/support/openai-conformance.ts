/**
 * Checks a chat-completions request body against OpenAI's official OpenAPI schema (a vendored
 * subset, see specs/), plus the rules the schema does not encode but the API enforces.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';

const schemaDocument = JSON.parse(
  readFileSync(new URL('./specs/openai-chat-completions.schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

// Formats (uri, …) are annotations here: the checks that matter are shapes, types and enums.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(schemaDocument, 'openai');
const validateRequest = ajv.compile({ $ref: 'openai#/$defs/CreateChatCompletionRequest' });

const functionName = /^[a-zA-Z0-9_-]{1,64}$/;

interface RequestBody {
  messages?: { role?: string; tool_calls?: { id: string }[]; tool_call_id?: string }[];
  tools?: { type: string; function?: { name: string; strict?: boolean; parameters?: unknown } }[];
  tool_choice?: unknown;
}

/** Every way `body` breaks the spec or the API's unwritten rules; empty when it conforms. */
export function chatRequestProblems(body: unknown): string[] {
  const problems: string[] = [];
  if (!validateRequest(body)) {
    for (const error of validateRequest.errors ?? []) {
      problems.push(`spec: ${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
    }
  }
  if (typeof body !== 'object' || body === null) return problems;
  const request = body as RequestBody;
  for (const tool of request.tools ?? []) {
    if (typeof tool !== 'object' || tool === null) continue;
    const name = tool.function?.name ?? '';
    if (!functionName.test(name)) problems.push(`function name ${JSON.stringify(name)} does not match ${functionName}`);
    if (tool.function?.strict === true) problems.push(...strictProblems(tool.function.parameters, name));
  }
  problems.push(...toolCallPairingProblems(request.messages ?? []));
  return problems;
}

/** Strict schemas: every object lists all its properties as required, and no others are allowed. */
function strictProblems(schema: unknown, path: string): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, index) => strictProblems(item, `${path}[${index}]`));
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const problems: string[] = [];
  for (const keyword of ['oneOf', 'allOf', 'not', 'if', 'prefixItems', 'patternProperties']) {
    if (keyword in node) problems.push(`strict schema ${path}: "${keyword}" is not supported in strict mode`);
  }
  if (node.type === 'object' || node.properties) {
    const properties = Object.keys((node.properties as object | undefined) ?? {});
    const required = (node.required as string[] | undefined) ?? [];
    if (node.additionalProperties !== false) problems.push(`strict schema ${path}: additionalProperties must be false`);
    const missing = properties.filter((name) => !required.includes(name));
    if (missing.length > 0) problems.push(`strict schema ${path}: not required: ${missing.join(', ')}`);
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      for (const [name, property] of Object.entries(value))
        problems.push(...strictProblems(property, `${path}.${name}`));
    } else if (typeof value === 'object') {
      problems.push(...strictProblems(value, `${path}/${key}`));
    }
  }
  return problems;
}

/** Each assistant tool call is answered by exactly one tool message before the next other message. */
function toolCallPairingProblems(messages: NonNullable<RequestBody['messages']>): string[] {
  const problems: string[] = [];
  let open = new Map<string, number>();
  const closeOpen = (at: number) => {
    for (const [id, count] of open) {
      if (count !== 1) problems.push(`tool_call_id ${id} answered ${count} times before message ${at}`);
    }
    open = new Map();
  };
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      const id = message.tool_call_id ?? '';
      if (!open.has(id)) problems.push(`message ${index}: tool message for unknown or closed tool_call_id ${id}`);
      else open.set(id, (open.get(id) ?? 0) + 1);
      return;
    }
    closeOpen(index);
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) open.set(call.id, 0);
  });
  closeOpen(messages.length);
  return problems;
}
