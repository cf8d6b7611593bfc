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
  const answer = stringDecoder();
  let skip = valueSkipper();
  let complete = false;

  /** One character of the arguments: the object's keys are read, the answer decoded, the rest skipped. */
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
        skip = valueSkipper();
        state = skip(char) ?? 'skip';
        return;
      case 'answer':
        if (answer.push(char)) {
          complete = true;
          state = 'done';
        }
        return;
      case 'skip':
        state = skip(char) ?? 'skip';
        return;
      case 'comma-or-end':
        if (char === ',') state = 'key-or-end';
        else if (char === '}') state = 'done';
        return;
      case 'done':
        return;
    }
  };

  return {
    push(piece) {
      const before = answer.text;
      // Code unit by code unit: a surrogate pair may be cut between two pieces.
      for (let index = 0; index < piece.length && state !== 'done'; index++) step(piece[index]!);
      return answer.text === before ? null : answer.text;
    },
    get text() {
      return answer.text;
    },
    get complete() {
      return complete;
    },
  };
}

/**
 * Decodes what is inside a JSON string's quotes, one code unit at a time: what it shows is always
 * whole (a half-read escape, or half a surrogate pair, is held back until the rest comes).
 */
function stringDecoder(): { push(unit: string): boolean; readonly text: string } {
  let text = '';
  /** An escape not yet whole: `\`, or `\u` and up to three hex digits. */
  let escape = '';
  /** A high surrogate, held until its low half comes (from text or from a `\u` escape). */
  let high = '';

  /** Adds decoded UTF-16 code units to the text, holding back a trailing high surrogate. */
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

  return {
    /** Takes one code unit; true when it is the closing quote: the string is whole. */
    push(unit) {
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
        return true;
      } else add(unit);
      return false;
    },
    get text() {
      return text;
    },
  };
}

/**
 * Skips one value other than the answer, from its first character: each call takes the next one,
 * and returns the reader's state after the value once it ended (null while inside it). The value
 * ends at depth 0 outside a string.
 */
function valueSkipper(): (char: string) => State | null {
  let depth = 0;
  let inString = false;
  let escaped = false;
  return (char) => {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') {
        inString = false;
        if (depth === 0) return 'comma-or-end';
      }
      return null;
    }
    if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth += 1;
    else if (char === '}' || char === ']') {
      depth -= 1;
      if (depth === 0) return 'comma-or-end';
      if (depth < 0) return 'done'; // The object's own `}` after a bare literal.
    } else if (depth === 0 && char === ',') return 'key-or-end';
    return null;
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
