/**
 * What a model server needs the bot to do differently from the OpenAI API: declared by its
 * provider profile, learned from its answers (a 400 that names what it refused, a reply that
 * ignored the forced tool choice), and remembered per server and model.
 */
import { parseJsonOr } from '../text/parse-json.ts';

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

/** Each fix in words, for the logs, the doctor and the start-up summary. */
export function describeFixes(fixes: ServerFixes): string[] {
  const lines: string[] = [];
  if (fixes.toolProtocol === 'text') lines.push('tools described in the prompt, calls read from the text');
  if (fixes.namedChoice === 'required-with-one-tool')
    lines.push('a named tool choice sent as "required" with that tool alone');
  if (fixes.dropParams?.length) lines.push(`parameters left out: ${fixes.dropParams.join(', ')}`);
  if (fixes.dropSchemaKeywords?.length) lines.push(`schema keywords left out: ${fixes.dropSchemaKeywords.join(', ')}`);
  if (fixes.collapseTypeLists) lines.push('lists of types in schemas written as one type, nullable');
  if (fixes.shortToolCallIds) lines.push('tool-call ids of nine letters or digits');
  if (fixes.extraBody) lines.push(`added to each request: ${JSON.stringify(fixes.extraBody)}`);
  if (fixes.reasoningBack === 'reasoning_content') lines.push('reasoning sent back on tool-call turns');
  if (fixes.keepExtraContent) lines.push("tool calls' thought signatures sent back");
  if (fixes.streaming === false) lines.push('replies not streamed');
  if (fixes.images === false) lines.push('images sent as their names (the model refused them)');
  return lines;
}

/** What is remembered of one server and model. */
export interface ServerRecord {
  /** Fixes learned from its answers (the profile's own are not stored). */
  learned: ServerFixes;
  /** The last `npm run doctor` report, as JSON the doctor wrote. */
  checkup: unknown;
  updatedAt: number;
}

/** Where fixes are remembered (SQLite for the bot; a map in tests that need no database). */
export interface ServerRecords {
  read(server: string, model: string): ServerRecord | null;
  learn(server: string, model: string, fixes: ServerFixes): void;
  saveCheckup(server: string, model: string, checkup: unknown): void;
}

/** Records kept in memory only: for a process without a database. */
export function recordsInMemory(): ServerRecords {
  const records = new Map<string, ServerRecord>();
  const key = (server: string, model: string) => `${server}\n${model}`;
  const get = (server: string, model: string) =>
    records.get(key(server, model)) ?? { learned: {}, checkup: null, updatedAt: Date.now() };
  return {
    read: (server, model) => records.get(key(server, model)) ?? null,
    learn(server, model, fixes) {
      const record = get(server, model);
      records.set(key(server, model), { ...record, learned: mergeFixes(record.learned, fixes), updatedAt: Date.now() });
    },
    saveCheckup(server, model, checkup) {
      records.set(key(server, model), { ...get(server, model), checkup, updatedAt: Date.now() });
    },
  };
}

/** Records in the database (db/model-servers.ts); a record that does not parse counts as none. */
export function recordsInDatabase(queries: {
  get(server: string, model: string): { learned: string; checkup: string | null; updated_at: number } | undefined;
  setLearned(server: string, model: string, learned: string): void;
  setCheckup(server: string, model: string, checkup: string): void;
}): ServerRecords {
  const parse = (text: string | null): unknown => (text === null ? null : parseJsonOr(text, null));
  const read = (server: string, model: string): ServerRecord | null => {
    const row = queries.get(server, model);
    if (!row) return null;
    const learned = parse(row.learned);
    return {
      learned: typeof learned === 'object' && learned !== null ? (learned as ServerFixes) : {},
      checkup: parse(row.checkup),
      updatedAt: row.updated_at,
    };
  };
  return {
    read,
    learn: (server, model, fixes) =>
      queries.setLearned(server, model, JSON.stringify(mergeFixes(read(server, model)?.learned, fixes))),
    saveCheckup: (server, model, checkup) => queries.setCheckup(server, model, JSON.stringify(checkup)),
  };
}
