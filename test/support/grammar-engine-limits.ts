/**
 * The documented limits of the grammar engines that hold a model to a tool call, written down on
 * their own (not taken from the bot's code) so that a test can check every schema the bot may send
 * against them. Each rule names its engine and its source.
 *
 * llama.cpp (and what uses its grammar code: Ollama, ollama/ollama llama/sampling_ext.cpp
 * `schema_to_grammar`; LM Studio's llama.cpp engine):
 * - no `pattern`: a group `(?…)` segfaulted the converter before ggml-org/llama.cpp#21124, `\d` `\w`
 *   `\s` make an unparseable grammar (#23436), a nested pattern fails to parse (#25746), and one not
 *   anchored `^…$` is refused (grammars/README.md);
 * - a length or item-count bound below 2000: the grammar parser's MAX_REPETITION_THRESHOLD
 *   (src/llama-grammar.cpp; b8291 refused a bound over 2000 with HTTP 500, newer builds one that
 *   reaches it, #25746);
 * - no `properties` beside `anyOf` / `oneOf` in one schema (#7703), no `$ref` (nested ones are
 *   broken, #8073), no `prefixItems` (broken) — grammars/README.md's known limitations;
 * - all the tools of a request well under 97 KB of JSON: past it the combined grammar was refused
 *   (#25895; the check keeps them under 64 KB).
 *
 * vLLM's guided decoding:
 * - xgrammar (the default backend), `has_xgrammar_unsupported_json_features` in
 *   vllm/v1/structured_output/backend_xgrammar.py: no `multipleOf`; no `uniqueItems`, `contains`,
 *   `minContains`, `maxContains`; a `format` only among STRING_SUPPORTED_FORMATS; no `pattern` or
 *   `format` beside `minLength` / `maxLength`; no `propertyNames` beside `properties`; no
 *   `patternProperties` beside `properties`;
 * - llguidance (the guidance backend, and llama.cpp built with LLAMA_USE_LLGUIDANCE),
 *   guidance-ai/llguidance docs/json_schema.md: `oneOf` only when provably `anyOf` (so none is
 *   sent), a `format` only among those it implements (an unknown one is an error).
 *
 * The formats every engine takes are llguidance's, all within xgrammar's list; llama.cpp's own
 * converter writes date, time, date-time and uuid and skips the others
 * (common/json-schema-to-grammar.cpp).
 */
import { everySchema, type SchemaNode } from '../../src/agent/schema-walk.ts';

export const llamacppMaxRepetitions = 2000;
export const maxToolsJsonBytes = 64 * 1024;
const formatsEveryEngineTakes = new Set([
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
const repetitionBounds = ['minLength', 'maxLength', 'minItems', 'maxItems'];
const xgrammarRefuses = ['multipleOf', 'uniqueItems', 'contains', 'minContains', 'maxContains'];

/** Each way one schema node breaks a rule above, in words naming the engine. */
function nodeProblems(node: SchemaNode): string[] {
  const problems: string[] = [];
  if ('pattern' in node) problems.push(`pattern ${JSON.stringify(node.pattern)} (llama.cpp, xgrammar)`);
  for (const bound of repetitionBounds) {
    const value = node[bound];
    if (typeof value === 'number' && value >= llamacppMaxRepetitions)
      problems.push(`${bound} ${value} (llama.cpp: ${llamacppMaxRepetitions} repetitions or more)`);
  }
  if (typeof node.format === 'string' && !formatsEveryEngineTakes.has(node.format))
    problems.push(`format "${node.format}" (llguidance)`);
  if (('pattern' in node || 'format' in node) && ('minLength' in node || 'maxLength' in node))
    problems.push('a pattern or format beside a length bound (xgrammar)');
  for (const keyword of xgrammarRefuses) if (keyword in node) problems.push(`${keyword} (xgrammar)`);
  if ('properties' in node && ('propertyNames' in node || 'patternProperties' in node))
    problems.push('propertyNames or patternProperties beside properties (xgrammar)');
  if ('properties' in node && ('anyOf' in node || 'oneOf' in node))
    problems.push('properties beside anyOf / oneOf (llama.cpp)');
  if ('oneOf' in node) problems.push('oneOf (llguidance)');
  if ('$ref' in node) problems.push('$ref (llama.cpp)');
  if ('prefixItems' in node) problems.push('prefixItems (llama.cpp)');
  return problems;
}

/** Every breach of the engines' limits in one tool's parameters. */
export function grammarEngineProblems(parameters: unknown): string[] {
  const problems: string[] = [];
  everySchema(parameters, (node) => {
    problems.push(...nodeProblems(node));
    return true;
  });
  return problems;
}
