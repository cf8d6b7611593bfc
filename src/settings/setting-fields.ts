/**
 * How one setting is read from the text of an environment variable: blank means unset, numbers
 * within bounds, URLs, Discord id lists, one word of a few. Which settings there are is settings-schema.ts.
 */
import { z } from 'zod';

export type Environment = Record<string, string | undefined>;

/**
 * The range of a number setting, in the words the README's table and `.env.example` use (a test
 * checks them against it), attached to its schema as zod metadata: one place for the bounds.
 */
export const rangeOf = (schema: z.ZodType): string | undefined =>
  (schema.meta() as { range?: string } | undefined)?.range;

const range = (min: number, max: number) => `from ${min} to ${max}`;

export const blankToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

export const optionalText = () => z.preprocess(blankToUndefined, z.string().optional());

export const text = (fallback: string) => z.preprocess(blankToUndefined, z.string().default(fallback));

/** A number setting written as `pattern` (said as `kind` in its message), within `min` and `max`. */
const bounded = (pattern: RegExp, kind: string, min: number, max: number, fallback: number) =>
  z
    .preprocess(
      blankToUndefined,
      z
        .string()
        .default(String(fallback))
        .pipe(
          z
            .string()
            .regex(pattern, `must be ${kind} ${range(min, max)}`)
            .transform(Number)
            .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`)),
        ),
    )
    .meta({ range: range(min, max) });

export const whole = (min: number, max: number, fallback: number) =>
  bounded(/^\d+$/, 'a whole number', min, max, fallback);

/** A whole number within bounds, or unset (null): for limits that are off unless the operator sets them. */
export const optionalWhole = (min: number, max: number) =>
  z
    .preprocess(
      blankToUndefined,
      z
        .string()
        .regex(/^\d+$/, `must be a whole number ${range(min, max)}`)
        .transform(Number)
        .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
        .optional(),
    )
    .transform((value) => value ?? null)
    .meta({ range: range(min, max) });

export const decimal = (min: number, max: number, fallback: number) =>
  bounded(/^\d+(\.\d+)?$/, 'a number', min, max, fallback);

/**
 * Whether a URL of the settings holds no user name or password. One that does never works (fetch
 * refuses it: https://fetch.spec.whatwg.org/#dom-request, "includes credentials"), and it would
 * carry a secret into every log line and report that names the server.
 */
export const withoutCredentials = (url: string) =>
  !URL.canParse(url) || new URL(url).username + new URL(url).password === '';

/** The message when a URL holds credentials (its value is then never echoed). */
export const credentialsProblem = 'must not hold a user name or password (give the key as a key, not in the URL)';

export const httpUrl = (fallback: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .default(fallback)
      .pipe(z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }))
      .refine(withoutCredentials, credentialsProblem),
  );

/** An http(s) URL, or unset. */
export const optionalHttpUrl = () =>
  z.preprocess(
    blankToUndefined,
    z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .refine(withoutCredentials, credentialsProblem)
      .optional(),
  );

/** An http(s) origin (scheme, host and port: no path), or unset; given as the origin alone, without a trailing slash. */
export const optionalOrigin = (example: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .refine((url) => /^[a-z]+:\/\/[^/?#]+\/?$/i.test(url), {
        message: `must be an origin alone, with no path, such as ${example}`,
      })
      .transform((url) => new URL(url).origin)
      .optional(),
  );

/** Comma- or space-separated Discord ids (snowflakes); empty means no restriction. */
export const idList = () =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .default('')
      .transform((value) => value.split(/[\s,]+/).filter(Boolean))
      .pipe(z.array(z.string().regex(/^\d{17,20}$/, 'must list Discord ids (17 to 20 digits), separated by commas'))),
  );

/** One of a few words, `fallback` when unset; the problem names them all. */
export const oneOf = <const Values extends readonly [string, ...string[]]>(values: Values, fallback: Values[number]) =>
  z.preprocess(
    blankToUndefined,
    z
      .enum(values, { error: `must be ${values.slice(0, -1).join(', ')} or ${values.at(-1)}` })
      .default(fallback as never),
  );

const maxShards = 65_535;

/** `auto` or a whole number of shards (1: not sharded). */
export const shardCount = () =>
  z
    .preprocess(
      blankToUndefined,
      z
        .string()
        .default('1')
        .pipe(z.string().regex(/^(auto|\d+)$/, 'must be auto or a whole number of shards from 1'))
        .transform((value) => (value === 'auto' ? ('auto' as const) : Number(value)))
        .pipe(
          z.union([
            z.literal('auto'),
            z.number().min(1, 'must be at least 1').max(maxShards, `must be at most ${maxShards}`),
          ]),
        ),
    )
    .meta({ range: `auto or ${range(1, maxShards)}` });

/** Shard ids and ranges (`0,1` or `0-3` or `4-7,9`), sorted, each once; unset: every shard. */
export const shardIdList = () =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^\s*\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*\s*$/, 'must list shard ids or ranges, such as 0,1 or 0-3')
      .transform((value) => {
        const ids = new Set<number>();
        for (const part of value.split(',')) {
          const [from, to = from] = part.split('-').map((bound) => Number(bound.trim()));
          for (let id = from!; id <= to!; id++) ids.add(id);
        }
        return [...ids].sort((a, b) => a - b);
      })
      .refine((ids) => ids.length > 0, 'must name at least one shard (a range from low to high)')
      .optional(),
  );
