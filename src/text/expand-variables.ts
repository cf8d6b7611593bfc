/**
 * `${NAME}` in the operator's files (MODELS_FILE, MCP_CONFIG) stands for the variable NAME of the
 * environment (or `.env`), so that secrets live where the other secrets do, not in the file.
 * `$${NAME}` is a literal `${NAME}` (docker compose's escape). A name that is not set is a problem,
 * reported by the path where it was written, never with any value.
 */
/** Variables by name, as the settings read them (a leaf helper: no project imports). */
type Environment = Record<string, string | undefined>;

const reference = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** A string that is exactly one reference, `${NAME}`: how a key must be written. */
export const onlyReference = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/** Every string in `value` (objects and arrays walked) with its references replaced; unset names are problems. */
export function expandVariables(
  value: unknown,
  environment: Environment,
  path: readonly (string | number)[] = [],
): { value: unknown; problems: string[] } {
  const problems: string[] = [];
  const walk = (node: unknown, at: readonly (string | number)[]): unknown => {
    if (typeof node === 'string')
      return node.replace(reference, (whole, escaped: string, name: string) => {
        if (escaped) return whole.slice(1);
        const found = environment[name];
        if (found === undefined || found.trim() === '') {
          const where = at.length > 0 ? `${at.join('.')}: ` : '';
          problems.push(`${where}\${${name}} is not set (in the environment or .env)`);
          return '';
        }
        return found;
      });
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...at, index]));
    if (typeof node === 'object' && node !== null)
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, [...at, key])]));
    return node;
  };
  return { value: walk(value, path), problems };
}
