/**
 * Reads the `answer` of a `final_answer` call out of its JSON arguments while they are still being
 * streamed, so that the answer can be shown as the model writes it. The arguments arrive in pieces
 * cut anywhere: inside a key, an escape, a `\u` sequence or a surrogate pair; `answer` may come
 * before or after the other fields. Only the top-level `answer` string is read; everything else is
 * skipped, nested values included. What it shows is always a prefix of the answer the whole
 * arguments hold (a half-read escape or half a surrogate pair is held back until whole).
 */

import { finalAnswerToolName } from './final-answer.ts';
import type { ModelCallObserver } from './model-client.ts';

/** Reads one call's arguments as they arrive. */
export interface AnswerReader {
  /** Takes the next piece; returns the answer read so far when this piece added to it, else null. */
  push(piece: string): string | null;
  /** The answer read so far ('' before it starts). */
  readonly text: string;
  /** Whether the answer's closing quote was read: it will not change any more. */
  readonly complete: boolean;
}

type State =
  | 'start' // before the top-level `{`
  | 'key-or-end' // in the object, before a key (or `}`)
  | 'key' // inside a key's quotes
  | 'colon' // after a key
  | 'value' // before a value
  | 'answer' // inside the answer's quotes
  | 'skip' // inside another value
  | 'comma-or-end' // after a value
  | 'done';

const simpleEscapes: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

export function answerReader(field = 'answer'): AnswerReader {
  let state: State = 'start';
  let key = '';
  let keyEscaped = false;
  let text = '';
  /** An escape of the answer not yet whole: `\`, or `\u` and up to three hex digits. */
  let escape = '';
  /** A high surrogate, held until its low half comes (from text or from a `\u` escape). */
  let high = '';
  // Skipping another value: its nesting, and whether inside a string (and after a backslash there).
  let depth = 0;
  let inString = false;
  let escaped = false;
  let complete = false;

  /** Adds decoded UTF-16 code units to the answer, holding back a trailing high surrogate. */
  const add = (units: string) => {
    let out = high + units;
    high = '';
    const last = out.charCodeAt(out.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      high = out.slice(-1);
      out = out.slice(0, -1);
    }
    text += out;
  };

  /** One code unit inside the answer's quotes. */
  const answerUnit = (unit: string) => {
    if (escape !== '') {
      escape += unit;
      if (escape.length === 2 && unit !== 'u') {
        escape = '';
        add(simpleEscapes[unit] ?? unit);
      } else if (escape.length === 6) {
        const code = Number.parseInt(escape.slice(2), 16);
        escape = '';
        add(String.fromCharCode(code));
      }
    } else if (unit === '\\') escape = unit;
    else if (unit === '"') {
      text += high; // A lone high surrogate at the very end: kept as written.
      high = '';
      complete = true;
      state = 'done';
    } else add(unit);
  };

  const step = (char: string) => {
    switch (state) {
      case 'start':
        if (char === '{') state = 'key-or-end';
        return;
      case 'key-or-end':
        if (char === '"') {
          state = 'key';
          key = '';
        } else if (char === '}') state = 'done';
        return;
      case 'key':
        if (keyEscaped) {
          key += char;
          keyEscaped = false;
        } else if (char === '\\') keyEscaped = true;
        else if (char === '"') state = 'colon';
        else key += char;
        return;
      case 'colon':
        if (char === ':') state = 'value';
        return;
      case 'value':
        if (/\s/.test(char)) return;
        if (key === field && char === '"') {
          state = 'answer';
          return;
        }
        state = 'skip';
        depth = 0;
        inString = false;
        escaped = false;
        skipChar(char);
        return;
      case 'answer':
        answerUnit(char);
        return;
      case 'skip':
        skipChar(char);
        return;
      case 'comma-or-end':
        if (char === ',') state = 'key-or-end';
        else if (char === '}') state = 'done';
        return;
      case 'done':
        return;
    }
  };

  /** One character of a value other than the answer; the value ends at depth 0 outside a string. */
  const skipChar = (char: string) => {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') {
        inString = false;
        if (depth === 0) state = 'comma-or-end';
      }
      return;
    }
    if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth += 1;
    else if (char === '}' || char === ']') {
      depth -= 1;
      if (depth === 0) state = 'comma-or-end';
      else if (depth < 0) state = 'done'; // The object's own `}` after a bare literal.
    } else if (depth === 0 && char === ',') state = 'key-or-end';
  };

  return {
    push(piece) {
      const before = text;
      // Code unit by code unit: a surrogate pair may be cut between two pieces.
      for (let index = 0; index < piece.length && state !== 'done'; index++) step(piece[index]!);
      return text === before ? null : text;
    },
    get text() {
      return text;
    },
    get complete() {
      return complete;
    },
  };
}

/** Watches a streamed reply's `final_answer` calls, and tells each growth of the answer. */
export function answerWatcher(tell: (text: string) => void): ModelCallObserver {
  const readers = new Map<number, { reader: AnswerReader; consumed: string }>();
  return {
    toolArguments(call) {
      if (call.name !== finalAnswerToolName) return;
      let entry = readers.get(call.index);
      // A reply sent again (a stream cut and retried) starts its arguments over: so does the reader.
      if (!entry || !call.arguments.startsWith(entry.consumed))
        readers.set(call.index, (entry = { reader: answerReader(), consumed: '' }));
      const shown = entry.reader.push(call.arguments.slice(entry.consumed.length));
      entry.consumed = call.arguments;
      if (shown !== null) tell(shown);
    },
  };
}
