/**
 * OpenAI's strict function schemas: the root is an object; every object lists all its properties
 * as required and sets `additionalProperties: false` (optional fields are nullable instead); and
 * only the supported keywords appear (no oneOf, allOf, not, tuples or conditionals). A schema that
 * breaks a rule is sent non-strict rather than rejected.
 */
export function isStrictCompatible(schema: unknown): boolean {
  if (!isObject(schema) || schema.type !== 'object') return false;
  return checkNode(schema);
}

/** Keywords strict mode rejects (the openai SDK's own list, and JSON Schema's conditionals). */
export const unsupportedStrictKeywords = new Set([
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

function checkNode(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(checkNode);
  if (!isObject(node)) return true;
  if (Object.keys(node).some((key) => unsupportedStrictKeywords.has(key)) || node.items === false) return false;
  const isObjectType = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));
  if (isObjectType || isObject(node.properties)) {
    const properties = isObject(node.properties) ? Object.keys(node.properties) : [];
    const required = Array.isArray(node.required) ? node.required : [];
    if (node.additionalProperties !== false) return false;
    if (properties.length !== required.length || !properties.every((name) => required.includes(name))) return false;
  }
  return Object.entries(node).every(([key, value]) =>
    key === 'properties' || key === '$defs' || key === 'definitions'
      ? isObject(value) && Object.values(value).every(checkNode)
      : typeof value === 'object' && value !== null
        ? checkNode(value)
        : true,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
