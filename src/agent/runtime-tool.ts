import { z } from 'zod';
import type { FunctionSpec } from './model-client.ts';
import { grammarSafeSchema } from './grammar-safe-schema.ts';
import { mapSchema } from './schema-walk.ts';
import { isStrictCompatible } from './strict-schema.ts';
import type { RuntimeTool, ToolContext, ValidationResult } from './tool.ts';

/**
 * A tool written in `tools/`: a plain object whose zod schema types `execute`'s arguments.
 * Optional fields are `.nullable()`, so that the model gets a strict schema.
 */
export interface ToolDefinition<Parameters extends z.ZodObject = z.ZodObject> {
  name: string;
  /** What the tool does and when to use it, for the model and for `/help`. */
  description: string;
  parameters: Parameters;
  /** Offered to the model only in runs asked for by moderators. */
  moderatorOnly?: boolean;
  /** Its arguments are private: recorded as these words and their length (RuntimeTool.privateArguments). */
  privateArguments?: string;
  execute(args: z.output<Parameters>, context: ToolContext): unknown;
}

/** The model's function names: letters, digits, `_` and `-`, at most 64 characters. */
const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Turns a zod tool into the runtime form, deriving its JSON Schema once: the schema of the input
 * (what the model writes, before defaults and transforms), with unknown keys closed off, as
 * `z.object` would strip them anyway.
 */
export function fromZodTool(definition: ToolDefinition): RuntimeTool {
  const { $schema: _ignored, ...derived } = z.toJSONSchema(definition.parameters, { io: 'input' }) as Record<
    string,
    unknown
  >;
  const inputSchema = closeObjects(derived) as Record<string, unknown>;
  return fromJsonSchemaTool({
    name: definition.name,
    description: definition.description,
    inputSchema,
    moderatorOnly: definition.moderatorOnly ?? false,
    ...(definition.privateArguments ? { privateArguments: definition.privateArguments } : {}),
    validate: (input) => zodValidate(definition.parameters, input),
    execute: async (args, context) => definition.execute(args as never, context),
  });
}

/**
 * Completes a tool that comes with a JSON Schema and its own validator (MCP servers). The model is
 * sent the schema without what a grammar engine cannot compile (grammar-safe-schema.ts); the
 * validator keeps the whole schema.
 */
export function fromJsonSchemaTool(tool: Omit<RuntimeTool, 'spec'>): RuntimeTool {
  if (!toolNamePattern.test(tool.name)) {
    throw new Error(`tool name "${tool.name}" must match ${toolNamePattern} for the model to call it`);
  }
  const parameters = grammarSafeSchema(tool.inputSchema);
  const spec: FunctionSpec = {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters,
      strict: isStrictCompatible(parameters),
    },
  };
  return { ...tool, spec };
}

/** Adds `additionalProperties: false` to every object schema that does not say otherwise. */
function closeObjects(schema: unknown): unknown {
  return mapSchema(schema, (node) =>
    node.type === 'object' && !('additionalProperties' in node) ? { ...node, additionalProperties: false } : node,
  );
}

export function zodValidate(schema: z.ZodType, input: unknown): ValidationResult {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) =>
      issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
    ),
  };
}
