/**
 * Extracts named schemas, and every schema they reference, from an OpenAPI 3.1 document into one
 * self-contained JSON Schema (2020-12) file, so that a fresh clone can check request bodies
 * against the official specs without carrying the whole multi-megabyte document.
 *
 * Usage (from the project root, with the specs checked out beside it):
 *   npx tsx test/support/specs/extract-schemas.ts ../shared/specs/openai/openapi.json \
 *     test/support/specs/openai-chat-completions.schema.json CreateChatCompletionRequest
 *
 * A root may also name an operation's JSON request body, for bodies the spec writes inline rather
 * than as a named schema (Discord's bulk overwrite of commands is an array):
 *   'BulkOverwriteApplicationCommandsRequest=PUT /applications/{application_id}/commands'
 *
 * OpenAPI 3.0's `nullable: true` (still used in places by OpenAI's spec) is rewritten to
 * `anyOf: [schema, {type: "null"}]`, and descriptions are dropped to keep the subset small.
 */
import { readFileSync, writeFileSync } from 'node:fs';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const [specPath, outPath, ...roots] = process.argv.slice(2);
if (!specPath || !outPath || roots.length === 0) {
  console.error('usage: extract-schemas.ts <openapi.json> <out.schema.json> <SchemaName...>');
  process.exit(2);
}

const spec = JSON.parse(readFileSync(specPath, 'utf8')) as {
  info: { title: string; version: string };
  components: { schemas: Record<string, Json> };
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Json }> } }>>;
};
const all = spec.components.schemas;
const prefix = '#/components/schemas/';
const picked = new Map<string, Json>();

const annotations = new Set(['description', 'nullable', 'example', 'x-oaiMeta', 'x-stainless-const']);

/** Rewrites one schema node; `isPropertyMap` marks a `properties` object, whose keys are names. */
function rewrite(node: Json, isPropertyMap = false): Json {
  if (Array.isArray(node)) return node.map((item) => rewrite(item));
  if (node === null || typeof node !== 'object') return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (isPropertyMap) {
      out[key] = rewrite(value);
      continue;
    }
    if (annotations.has(key)) continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith(prefix)) {
      const name = value.slice(prefix.length);
      visit(name);
      out.$ref = `#/$defs/${name}`;
      continue;
    }
    out[key] = rewrite(value, key === 'properties' || key === 'patternProperties');
  }
  if (!isPropertyMap && (node as { nullable?: unknown }).nullable === true) {
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

function visit(name: string): void {
  if (picked.has(name)) return;
  const schema = all[name];
  if (schema === undefined) throw new Error(`no schema named ${name}`);
  picked.set(name, true); // placeholder, so that a cycle stops here
  picked.set(name, rewrite(schema));
}

/** `Name=METHOD /path`: the operation's application/json request body, under `Name`. */
function visitRequestBody(name: string, operation: string): void {
  const [method = '', path = ''] = operation.trim().split(/\s+/, 2);
  const schema = spec.paths[path]?.[method.toLowerCase()]?.requestBody?.content?.['application/json']?.schema;
  if (schema === undefined) throw new Error(`no application/json request body for ${operation}`);
  picked.set(name, rewrite(schema));
}

for (const root of roots) {
  const at = root.indexOf('=');
  if (at === -1) visit(root);
  else visitRequestBody(root.slice(0, at), root.slice(at + 1));
}

const out = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $comment: `Extracted from ${spec.info.title} ${spec.info.version} by extract-schemas.ts; see LICENSE beside this file.`,
  $defs: Object.fromEntries([...picked.entries()].sort(([a], [b]) => a.localeCompare(b))),
};
writeFileSync(outPath, `${JSON.stringify(out, null, 1)}\n`);
console.log(`${outPath}: ${picked.size} schemas`);
