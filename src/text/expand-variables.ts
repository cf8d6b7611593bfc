/**
 * `${NAME}` in the operator's files (MODELS_FILE, MCP_CONFIG) stands for the variable NAME of the
 * environment (or `.env`), so that secrets live where the other secrets do, not in the file. It is
 * read only where a secret belongs (a model's `api_key`, a server's `env` and `headers`): any other
 * field is shown to people, logged or sent to a server, so a file shared by someone else could
 * carry any variable there (the Discord token into a command choice, a URL or a model name). And
 * `DISCORD_TOKEN` is never read, not even there: no other server needs it. `$${NAME}` is a literal
 * `${NAME}` (docker compose's escape). `${NAME:-default}` is NAME when it is set and not empty, else
 * the default as written, as Claude Code reads its .mcp.json ("Environment variable expansion in
 * .mcp.json", https://code.claude.com/docs/en/mcp) and a shell does; any other `${…}` form there is
 * refused with the field named, never sent as it is. Problems are reported by the path where they
 * were written, never with any value.
 */
/** Variables by name, as the settings read them (a leaf helper: no project imports). */
type Environment = Record<string, string | undefined>;

type Path = readonly (string | number)[];

const reference = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
/** Anything written as a reference, a malformed one too (`${A:-b}`), in a field that reads none. */
const anyReference = /\$(\$?)\{([^}]*)\}/g;

/** A string that is exactly one reference, `${NAME}`: how a key must be written. */
export const onlyReference = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/** The one variable no file may read: the bot's own token. */
const discordToken = 'DISCORD_TOKEN';

/** Where a file reads its variables: the places of its secrets, and those places in words. */
export interface SecretPlaces {
  holdsSecret(path: Path): boolean;
  /** As the problem names them: "api_key", "env and headers". */
  described: string;
}

/**
 * Every string in `value` (objects and arrays walked) with its references replaced where a secret
 * belongs; a reference anywhere else, an unset name or the Discord token is a problem. `secrets`
 * are the values read, for the logger to mask.
 */
export function expandVariables(
  value: unknown,
  environment: Environment,
  places: SecretPlaces,
  path: Path = [],
): { value: unknown; problems: string[]; secrets: string[] } {
  const problems: string[] = [];
  const secrets: string[] = [];
  const token = environment[discordToken]?.trim() || null;
  const read = (whole: string, escaped: string, name: string, fallback: string | undefined, where: string) => {
    if (escaped) return whole.slice(1);
    const found = environment[name]?.trim() ? environment[name] : fallback;
    if (name === discordToken || (token !== null && found?.includes(token))) {
      problems.push(
        `${where}\${${name}} ${name === discordToken ? 'is' : 'holds'} the Discord bot's token, which is never sent to another server: name the variable of this server's own key`,
      );
      return '';
    }
    if (found === undefined || (fallback === undefined && found.trim() === '')) {
      problems.push(`${where}\${${name}} is not set (in the environment or .env)`);
      return '';
    }
    if (found !== '') secrets.push(found);
    return found;
  };
  // What is left between the references read (`${A:b}`, `${A-b}`, `${}`) is no form the bot reads.
  const leftover = (text: string, where: string) =>
    text.replace(anyReference, (whole, escaped: string, inner: string) => {
      if (escaped) return whole.slice(1);
      problems.push(`${where}\${${inner}} is not a form the bot reads: write \${NAME} or \${NAME:-default}`);
      return '';
    });
  const expand = (text: string, where: string) => {
    let out = '';
    let last = 0;
    for (const match of text.matchAll(reference)) {
      out += leftover(text.slice(last, match.index), where) + read(match[0], match[1]!, match[2]!, match[3], where);
      last = match.index + match[0].length;
    }
    return out + leftover(text.slice(last), where);
  };
  const refuse = (text: string, where: string) =>
    text.replace(anyReference, (whole, escaped: string, name: string) => {
      if (escaped) return whole.slice(1);
      problems.push(
        `${where}\${${name}} cannot be used here: variables are read only in ${places.described} (this field is shown or sent as it is; $\${…} writes a literal \${…})`,
      );
      return '';
    });
  const walk = (node: unknown, at: Path): unknown => {
    if (typeof node === 'string') {
      const where = at.length > 0 ? `${at.join('.')}: ` : '';
      return places.holdsSecret(at) ? expand(node, where) : refuse(node, where);
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...at, index]));
    if (typeof node === 'object' && node !== null)
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, [...at, key])]));
    return node;
  };
  return { value: walk(value, path), problems, secrets };
}
