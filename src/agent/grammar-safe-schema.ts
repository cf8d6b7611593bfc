import { mapSchema, type SchemaNode } from './schema-walk.ts';

/**
 * What a tool's parameters look like as the model is sent them: a schema every grammar engine
 * takes. Servers that run models themselves turn the tools' schemas into a grammar that holds the
 * model to a call (llama.cpp and those built on its grammar code: Ollama, LM Studio's GGUF engine;
 * vLLM's guided decoding: xgrammar, llguidance), and a keyword one of them cannot compile breaks
 * every request that offers the tool: a crash, an HTTP 500, or a grammar silently dropped
 * (ggml-org/llama.cpp#19051).
 * What is sent need not be what is checked: the tool's validator (zod, or ajv for an MCP server's
 * schema) keeps every rule, and a call that breaks one goes back to the model as the observation
 * any invalid call gets. So the schema sent only leaves out, never adds:
 *
 * - `pattern`: llama.cpp's converter turns a regex into grammar rules and knows only a subset.
 *   Before ggml-org/llama.cpp#21124 (merged 2026-03-28) a group `(?:…)` made it call `back()` on an
 *   empty sequence: a segfault, which took down llama-server b8291 at every request offering
 *   remind_me (zod's `z.iso.datetime()` writes a 288-character pattern of 14 such groups). `\d`, `\w`,
 *   `\s` are not translated and make the grammar unparseable (#23436), a nested pattern fails to
 *   parse (#25746), and one not anchored `^…$` is refused (grammars/README.md). xgrammar refuses a
 *   pattern beside a length bound (vllm/v1/structured_output/backend_xgrammar.py).
 * - A `format` llguidance does not implement (vLLM's guidance backend, and llama.cpp built with
 *   LLAMA_USE_LLGUIDANCE, refuse it: guidance-ai/llguidance docs/json_schema.md); its list is within
 *   xgrammar's (STRING_SUPPORTED_FORMATS in vLLM's backend_xgrammar.py), and llama.cpp's own
 *   converter writes date, time, date-time and uuid and skips the others
 *   (common/json-schema-to-grammar.cpp).
 * - `minLength` / `maxLength` beside a format kept: xgrammar cannot hold both (backend_xgrammar.py,
 *   `_has_pattern_and_length_bounds`).
 * - A length or item-count bound above {@link maxGrammarRepetition}: llama.cpp writes it as a
 *   repetition `{m,n}`, and its grammar parser refuses more than MAX_REPETITION_THRESHOLD (2000)
 *   repetitions (src/llama-grammar.cpp); b8291 answered such a request with HTTP 500 "Failed to
 *   parse input at pos 0" (by all signs the grammar dropped, the model's free text then not a call), and
 *   newer builds refuse a count that reaches 2000 (#25746).
 * - `multipleOf`, `uniqueItems`, `contains`, `minContains`, `maxContains`: xgrammar refuses them
 *   (`has_xgrammar_unsupported_json_features`); llama.cpp skips them (grammars/README.md).
 * - `oneOf` is sent as `anyOf` (a wider rule, the validator keeps the narrow one): llguidance
 *   refuses a `oneOf` it cannot prove to be one (docs/json_schema.md), llama.cpp reads it as
 *   `anyOf` anyway.
 *
 * Ollama makes schemas into grammars with llama.cpp's code (ollama/ollama llama/sampling_ext.cpp,
 * `schema_to_grammar`), as LM Studio's llama.cpp engine does for GGUF models: the same limits.
 */
export function grammarSafeSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return mapSchema(schema, grammarSafeNode) as Record<string, unknown>;
}

/**
 * The largest length or item-count bound sent. Half of llama.cpp's MAX_REPETITION_THRESHOLD
 * (2000): its newest parser multiplies a repetition's count by the rules it repeats, so a bound
 * near the threshold may still be refused once nested.
 */
const maxGrammarRepetition = 1000;

/** The string formats every engine takes (llguidance's list; see {@link grammarSafeSchema}). */
const grammarFormats: ReadonlySet<string> = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
  'uri',
]);

/** Keywords some engine refuses and none needs to hold the model to a call. */
const refusedKeywords = ['pattern', 'multipleOf', 'uniqueItems', 'contains', 'minContains', 'maxContains'];
const repetitionBounds = ['minLength', 'maxLength', 'minItems', 'maxItems'];

function grammarSafeNode(node: SchemaNode): SchemaNode {
  const out: SchemaNode = { ...node };
  for (const keyword of refusedKeywords) delete out[keyword];
  if (typeof out.format === 'string' && !grammarFormats.has(out.format)) delete out.format;
  if ('oneOf' in out && !('anyOf' in out)) {
    out.anyOf = out.oneOf;
    delete out.oneOf;
  }
  const keptFormat = typeof out.format === 'string';
  for (const bound of repetitionBounds) {
    const value = out[bound];
    const isLength = bound === 'minLength' || bound === 'maxLength';
    if (typeof value !== 'number') continue;
    if (value > maxGrammarRepetition || (isLength && keptFormat)) delete out[bound];
  }
  return out;
}
