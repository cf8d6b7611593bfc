/**
 * llama-server b8291 (`--jinja`, a template with a recognised tool-call format) turning the tools'
 * schemas into a grammar, as it was seen to fail against the bot (issue 38), for the fake model's
 * `grammar: 'llama.cpp'` option (fake-model/quirk-mode.ts):
 *
 * - A `pattern` with a group `(?…)` crashes the server: the connection is reset, no answer. Its
 *   converter (common/json-schema-to-grammar.cpp, `_visit_pattern`) did not step over `?:` after
 *   `(`, read `?` as a quantifier of nothing and called `back()` on an empty sequence: a segfault
 *   (ggml-org/llama.cpp#21124, the fix, merged 2026-03-28; #12252, #13391). The length of the
 *   pattern is not what crashes it: zod's `z.iso.datetime()` pattern (288 characters with the offset) is
 *   long because it is made of such groups, and one `^(?:a)$` does the same. So the fake crashes
 *   on the group, whatever the pattern's length.
 * - A length or item-count bound over 2000 (`maxLength: 2048`) is refused with HTTP 500 "Failed to
 *   parse input at pos 0": the grammar parser refuses a repetition past MAX_REPETITION_THRESHOLD
 *   (2000, src/llama-grammar.cpp), the grammar is dropped, and the model's unconstrained reply no
 *   longer parses as a call. The same request with 2000 got a tool call.
 */
import { everySchema } from '../../../src/agent/schema-walk.ts';
import { native } from './quirk-rendering.ts';
import type { SeenRequest } from './brain.ts';

export type GrammarFault = 'crash' | { status: number; body: unknown };

/** b8291's MAX_REPETITION_THRESHOLD, as it applied it: a bound above it was refused. */
const maxRepetitions = 2000;
const bounds = ['minLength', 'maxLength', 'minItems', 'maxItems'];

/** What llama-server b8291 does with the request's tools' schemas: crash, refuse, or nothing (null). */
export function llamacppGrammarFault(request: SeenRequest): GrammarFault | null {
  if (!native(request)) return null;
  const schemas = (request.tools as { function: { parameters?: unknown } }[]).map((tool) => tool.function.parameters);
  const crashes = schemas.some(
    (schema) => !everySchema(schema, (node) => !(typeof node.pattern === 'string' && node.pattern.includes('(?'))),
  );
  if (crashes) return 'crash';
  const tooMany = schemas.some(
    (schema) =>
      !everySchema(schema, (node) =>
        bounds.every((bound) => typeof node[bound] !== 'number' || (node[bound] as number) <= maxRepetitions),
      ),
  );
  if (!tooMany) return null;
  return {
    status: 500,
    body: { error: { code: 500, message: 'Failed to parse input at pos 0', type: 'server_error' } },
  };
}
