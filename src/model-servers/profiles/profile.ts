import type { ServerFixes } from '../server-fixes.ts';

/** Whether a server honours something: documented yes or no, or to be learned from its answers. */
type Support = 'yes' | 'no' | 'unknown';

/** What a server honours, as its documentation or its issue threads say. */
export interface Capabilities {
  /** `tool_choice: "required"`: a reply always calls a tool. */
  requiredChoice: Support;
  /** `tool_choice: {type: "function", function: {name}}`: that tool is called. */
  namedChoice: Support;
  /** `strict: true` function schemas. */
  strictSchemas: Support;
  /** Several tool calls in one reply. */
  parallelCalls: Support;
  /** `image_url` parts in user messages. */
  images: Support;
  /** Tool calls in a streamed reply. */
  streamingToolCalls: Support;
}

/**
 * A model server's profile: data, and the few rewrites it needs, with their sources. `Id` is the
 * profile's own id as a literal (`ProviderProfile<'ollama'>`): the list of ids is read from the
 * profiles (index.ts).
 */
export interface ProviderProfile<Id extends string = string> {
  /** Its MODEL_PROVIDER value. */
  id: Id;
  /** As people name it. */
  name: string;
  /** Whether a base URL is this server's (host, port or path). */
  matches(url: URL): boolean;
  honours: Capabilities;
  /** What the bot does from the first request (more may be learned from the server's answers). */
  fixes: ServerFixes;
  /**
   * Whether the server cuts a prompt longer than its context window without an error: only then is
   * each reply's prompt size weighed against what was sent (server-session.ts, noticeCutPrompt).
   */
  cutsLongPrompts?: true;
  /** The connection as the server wants it (Azure: the key as `api-key`, the API version as a query). */
  connection?(
    baseURL: string,
    apiKey: string | null,
  ): {
    baseURL: string;
    headers?: Record<string, string>;
    query?: Record<string, string>;
  };
  /** What an operator should set on the server for the bot to work well. */
  advice: readonly string[];
  /** Where each fact comes from. */
  sources: readonly string[];
}

/** What a server honours: what is not given is unknown (learned from its answers). */
export function capabilities(known: Partial<Capabilities>): Capabilities {
  return {
    requiredChoice: 'unknown',
    namedChoice: 'unknown',
    strictSchemas: 'unknown',
    parallelCalls: 'unknown',
    images: 'unknown',
    streamingToolCalls: 'unknown',
    ...known,
  };
}

/** A URL's port, or the scheme's default. */
export function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}
