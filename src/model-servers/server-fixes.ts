/**
 * The vocabulary of provider adaptation: what a model server needs the bot to do differently from
 * the OpenAI API, how fixes from several places add up, and how each reads in words. Fixes come
 * from a provider's profile (profiles/), from the rules that read its answers
 * (adaptation-rules.ts), and are remembered per server and model (server-records.ts).
 */

/** How tools are offered: the API's `tools` and `tool_choice`, or described in the prompt and written as text. */
export type ToolProtocol = 'native' | 'text';

export interface ServerFixes {
  toolProtocol?: ToolProtocol;
  /** A named tool choice the server ignores: offer only that tool, with `required`. */
  namedChoice?: 'native' | 'required-with-one-tool';
  /** Top-level request parameters the server refuses. */
  dropParams?: readonly string[];
  /** JSON Schema keywords the server refuses in tool parameters (`strict` on the function too). */
  dropSchemaKeywords?: readonly string[];
  /** `type: ["string", "null"]` as `type: "string", nullable: true` (OpenAPI's form, Gemini's schemas). */
  collapseTypeLists?: boolean;
  /** Tool-call ids of exactly nine letters or digits (Mistral). */
  shortToolCallIds?: boolean;
  /** Fields added to every request (OpenRouter's `provider.require_parameters`). */
  extraBody?: Readonly<Record<string, unknown>>;
  /** Reasoning sent back on assistant turns with tool calls, as this field (DeepSeek's thinking mode). */
  reasoningBack?: 'never' | 'reasoning_content';
  /** Tool calls' `extra_content` sent back as received (Gemini's thought signatures). */
  keepExtraContent?: boolean;
  /** False: replies are not streamed (the server refused a streamed request). */
  streaming?: boolean;
  /** False: the model refused images; each is sent as its name (and MODEL_VISION=auto turns off). */
  images?: boolean;
  /** The conversation's key, hashed, as `prompt_cache_key`: the server sends its requests where their prefix is cached. */
  promptCacheKey?: boolean;
}

/** Later fixes win; lists are joined. */
export function mergeFixes(...all: readonly (ServerFixes | null | undefined)[]): ServerFixes {
  const merged: ServerFixes = {};
  for (const fixes of all) {
    if (!fixes) continue;
    const { dropParams, dropSchemaKeywords, extraBody, ...rest } = fixes;
    Object.assign(merged, rest);
    if (dropParams) merged.dropParams = [...new Set([...(merged.dropParams ?? []), ...dropParams])];
    if (dropSchemaKeywords)
      merged.dropSchemaKeywords = [...new Set([...(merged.dropSchemaKeywords ?? []), ...dropSchemaKeywords])];
    if (extraBody) merged.extraBody = { ...merged.extraBody, ...extraBody };
  }
  return merged;
}

/** Whether adding `fix` to `current` changes anything: a fix in place already would loop. */
export function changesFixes(current: ServerFixes, fix: ServerFixes): boolean {
  return Object.entries(fix).some(([key, value]) => {
    const now = current[key as keyof ServerFixes];
    if (Array.isArray(value))
      return value.some((item) => !((now as readonly string[] | undefined) ?? []).includes(item));
    return JSON.stringify(now) !== JSON.stringify(value);
  });
}

/**
 * Each kind of fix in words (null when its value changes nothing worth saying), in the order they
 * are listed. The type asks for every kind: a new one does not compile until it says how it reads.
 */
const inWords: { [Kind in keyof ServerFixes]-?: (value: NonNullable<ServerFixes[Kind]>) => string | null } = {
  toolProtocol: (protocol) => (protocol === 'text' ? 'tools described in the prompt, calls read from the text' : null),
  namedChoice: (choice) =>
    choice === 'required-with-one-tool' ? 'a named tool choice sent as "required" with that tool alone' : null,
  dropParams: (params) => (params.length ? `parameters left out: ${params.join(', ')}` : null),
  dropSchemaKeywords: (keywords) => (keywords.length ? `schema keywords left out: ${keywords.join(', ')}` : null),
  collapseTypeLists: (on) => (on ? 'lists of types in schemas written as one type, nullable' : null),
  shortToolCallIds: (on) => (on ? 'tool-call ids of nine letters or digits' : null),
  extraBody: (fields) => `added to each request: ${JSON.stringify(fields)}`,
  reasoningBack: (field) => (field === 'reasoning_content' ? 'reasoning sent back on tool-call turns' : null),
  keepExtraContent: (on) => (on ? "tool calls' thought signatures sent back" : null),
  streaming: (on) => (on === false ? 'replies not streamed' : null),
  images: (on) => (on === false ? 'images sent as their names (the model refused them)' : null),
  // Something the server offers, asked for: no fault worked around, nothing to tell among the fixes.
  promptCacheKey: () => null,
};

/** Each fix in words, for the logs, the doctor and the start-up summary. */
export function describeFixes(fixes: ServerFixes): string[] {
  return (Object.keys(inWords) as (keyof ServerFixes)[]).flatMap((kind) => {
    const value = fixes[kind];
    // A remembered record is JSON: a kind may be there as null.
    if (value === undefined || value === null) return [];
    const line = (inWords[kind] as (value: unknown) => string | null)(value);
    return line === null ? [] : [line];
  });
}
