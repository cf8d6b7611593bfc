/**
 * Walking a JSON Schema: the one place that knows where the subschemas of a schema are. A tool's
 * runtime form is a JSON Schema (derived from zod, or sent by an MCP server), and several passes
 * look at or rewrite every schema inside it (closing objects, the strict-mode check, adding
 * `items` to arrays). What they must all get right:
 * - under `properties`, `$defs` and the like, keys are names chosen by the tool's author, not
 *   keywords: a property called "not" or "items" is a schema, not a `not` or `items` keyword;
 * - `enum`, `const`, `default` and `examples` hold data, not schemas: an enum value that happens
 *   to look like `{ "type": "array" }` is left as it is;
 * - any other object or array value (`items`, `anyOf`, `additionalProperties`, and keywords we do
 *   not know) is walked as a schema or a list of schemas, which errs on the side of looking.
 */

/** A schema object (a boolean schema, `true` or `false`, has nothing inside it to walk). */
export type SchemaNode = Record<string, unknown>;

/** Keywords whose value maps names to schemas (draft 7's `dependencies` may also map a name to a list of names: left as it is). */
const namedSchemaKeywords = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);
/** Keywords whose value is data (instances), never a schema. */
const dataKeywords = new Set(['enum', 'const', 'default', 'examples']);

/**
 * The schema rebuilt from the bottom up: `transform` gets each schema object inside `schema`
 * (and `schema` itself) after its own subschemas were rebuilt, and returns its replacement. The
 * input is not changed. A list (`anyOf`, tuple `items`) is rebuilt element by element.
 */
export function mapSchema(schema: unknown, transform: (node: SchemaNode) => SchemaNode): unknown {
  if (Array.isArray(schema)) return schema.map((item) => mapSchema(item, transform));
  if (!isSchemaNode(schema)) return schema;
  const out: SchemaNode = {};
  for (const [key, value] of Object.entries(schema)) {
    if (dataKeywords.has(key)) out[key] = value;
    else if (namedSchemaKeywords.has(key) && isSchemaNode(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, mapSchema(child, transform)]));
    } else out[key] = mapSchema(value, transform);
  }
  return transform(out);
}

/** Whether `test` holds for `schema` and for every schema inside it (checked from the root down; it stops at the first that fails). */
export function everySchema(schema: unknown, test: (node: SchemaNode) => boolean): boolean {
  if (Array.isArray(schema)) return schema.every((item) => everySchema(item, test));
  if (!isSchemaNode(schema)) return true;
  if (!test(schema)) return false;
  return Object.entries(schema).every(([key, value]) => {
    if (dataKeywords.has(key)) return true;
    if (namedSchemaKeywords.has(key) && isSchemaNode(value))
      return Object.values(value).every((child) => everySchema(child, test));
    return everySchema(value, test);
  });
}

export function isSchemaNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
