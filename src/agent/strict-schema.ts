/**
 * OpenAI's strict function schemas: every object lists all its properties as required and sets
 * `additionalProperties: false` (optional fields are nullable instead), and the root is an object.
 * A schema that breaks a rule is sent non-strict rather than rejected.
 */
export function isStrictCompatible(schema: unknown): boolean {
  if (!isObject(schema) || schema.type !== 'object') return false;
  return checkNode(schema);
}

function checkNode(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(checkNode);
  if (!isObject(node)) return true;
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
