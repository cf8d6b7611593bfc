/**
 * How one setting is read from the text of an environment variable: blank means unset, numbers
 * within bounds, URLs, Discord id lists, one word of a few. Which settings there are is config.ts.
 */
import { z } from 'zod';

export type Environment = Record<string, string | undefined>;

export const blankToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

export const optionalText = () => z.preprocess(blankToUndefined, z.string().optional());

export const text = (fallback: string) => z.preprocess(blankToUndefined, z.string().default(fallback));

export const whole = (min: number, max: number, fallback: number) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .default(String(fallback))
      .pipe(
        z
          .string()
          .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
          .transform(Number)
          .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`)),
      ),
  );

export const decimal = (min: number, max: number, fallback: number) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .default(String(fallback))
      .pipe(
        z
          .string()
          .regex(/^\d+(\.\d+)?$/, `must be a number from ${min} to ${max}`)
          .transform(Number)
          .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`)),
      ),
  );

export const httpUrl = (fallback: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .default(fallback)
      .pipe(z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })),
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
