import { everySchema, isSchemaNode, type SchemaNode } from './schema-walk.ts';

/**
 * OpenAI's strict function schemas: the root is an object; every object lists all its properties
 * as required and sets `additionalProperties: false` (optional fields are nullable instead); and
 * only the supported keywords appear (no oneOf, allOf, not, tuples or conditionals). A schema that
 * breaks a rule is sent non-strict rather than rejected.
 */
export function isStrictCompatible(schema: unknown): boolean {
  if (!isSchemaNode(schema) || schema.type !== 'object') return false;
  return everySchema(schema, meetsStrictRules);
}

/** Keywords strict mode rejects (the openai SDK's own list, and JSON Schema's conditionals). */
const unsupportedStrictKeywords = new Set([
  'oneOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'prefixItems',
  'patternProperties',
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
]);

/** Keywords whose value must map names to schemas. */
const namesKeywords = ['properties', '$defs', 'definitions'];

/** The rules for one schema object; `everySchema` applies them to every schema inside. */
function meetsStrictRules(node: SchemaNode): boolean {
  if (Object.keys(node).some((key) => unsupportedStrictKeywords.has(key)) || node.items === false) return false;
  // A map of names that is not an object ("properties": []) is not a schema to send as strict.
  if (namesKeywords.some((key) => key in node && !isSchemaNode(node[key]))) return false;
  const isObjectType = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));
  if (isObjectType || isSchemaNode(node.properties)) {
    const properties = isSchemaNode(node.properties) ? Object.keys(node.properties) : [];
    const required = Array.isArray(node.required) ? node.required : [];
    if (node.additionalProperties !== false) return false;
    if (properties.length !== required.length || !properties.every((name) => required.includes(name))) return false;
  }
  return true;
}
