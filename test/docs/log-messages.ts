/**
 * The log lines the bot can write, read from its source, and the ones docs/operating.md's "What the
 * log lines mean" explains: for the test that keeps the two the same (log-lines.test.ts).
 *
 * A line's message is the last argument of a call to a logger (`logger.warn({...}, 'message')`): a
 * string, a template (its `${…}` parts read as "…"), or a constant of the same file. A message made
 * elsewhere at run time is named in `madeElsewhere` with the pattern the docs give it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface LogCall {
  level: string;
  file: string;
  /** Its messages (two for `a ? 'x' : 'y'`), each part only known at run time as "…"; [] when unreadable. */
  messages: string[];
  /** The call's last argument as written. */
  source: string;
}

const loggerCall = /\b(?:logger|log)\??\.(debug|info|warn|error|fatal)\(/g;

function sourceFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) files.push(path);
    }
  };
  for (const folder of ['src', 'commands', 'tools', 'db']) walk(join(root, folder));
  return files;
}

/** The top-level arguments of the call whose argument list starts at `start` (just past its `(`). */
function callArguments(text: string, start: number): string[] {
  const parts: string[] = [];
  let depth = 1;
  let from = start;
  for (let index = start; index < text.length; index += 1) {
    const character = text[index]!;
    if (character === "'" || character === '"' || character === '`') index = stringEnd(text, index);
    else if ('({['.includes(character)) depth += 1;
    else if (')}]'.includes(character)) {
      depth -= 1;
      if (depth === 0) return [...parts, text.slice(from, index)].map((part) => part.trim()).filter(Boolean);
    } else if (character === ',' && depth === 1) {
      parts.push(text.slice(from, index));
      from = index + 1;
    }
  }
  return parts;
}

/** The index of the quote that closes the string opened at `open` (a template's `${…}` skipped). */
function stringEnd(text: string, open: number): number {
  const quote = text[open]!;
  for (let index = open + 1; index < text.length; index += 1) {
    if (text[index] === '\\') index += 1;
    else if (text[index] === quote) return index;
    else if (quote === '`' && text.startsWith('${', index)) {
      let depth = 1;
      for (index += 2; depth > 0; index += 1) depth += text[index] === '{' ? 1 : text[index] === '}' ? -1 : 0;
      index -= 1;
    }
  }
  return text.length;
}

/** A string or template literal as its message; a constant of the file, read as one; else null. */
function messageOf(argument: string, text: string): string | null {
  const literal = /^(['"`])([\s\S]*)\1$/.exec(argument);
  if (literal) return literal[2]!.replace(/\$\{[^}]*\}/g, '…').replace(/\\(.)/g, '$1');
  if (!/^[A-Za-z_$][\w$]*$/.test(argument)) return null;
  const constant = new RegExp(`const ${argument}\\s*=\\s*(['"\`][^\\n]*['"\`]);`).exec(text);
  return constant ? messageOf(constant[1]!, text) : null;
}

/** The messages an argument logs: a literal, a constant of the file, or either branch of a conditional. */
function messagesOf(argument: string, text: string): string[] {
  const conditional = /^[^'"`]+?\s\?\s*(['"`][^]*['"`])\s*:\s*(['"`][^]*['"`])$/.exec(argument);
  const parts = conditional ? [conditional[1]!, conditional[2]!] : [argument];
  const messages = parts.map((part) => messageOf(part, text));
  return messages.every((message) => message !== null) ? (messages as string[]) : [];
}

export function logCalls(root: string): LogCall[] {
  return sourceFiles(root).flatMap((path) => {
    const text = readFileSync(path, 'utf8');
    return [...text.matchAll(loggerCall)].map((match) => {
      const source = callArguments(text, match.index + match[0].length).at(-1) ?? '';
      return { level: match[1]!, file: relative(root, path), messages: messagesOf(source, text), source };
    });
  });
}

/** Each message the "What the log lines mean" section names (the first column's code spans). */
export function documentedMessages(operating: string): string[] {
  const section = operating.slice(operating.indexOf('## What the log lines mean'));
  const end = section.indexOf('\n## ', 3);
  return (end === -1 ? section : section.slice(0, end))
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split(' | ')[0]!.matchAll(/`([^`]+)`/g)].map((span) => span[1]!));
}

/** A documented message as a pattern: "…" and the placeholders NAME, URL, M, N stand for any text. */
export function patternOf(documented: string): RegExp {
  const parts = documented.split(/…|\b(?:NAME|URL|M|N)\b/);
  return new RegExp(`^${parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}
