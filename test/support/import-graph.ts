/**
 * The project's import graph, read from the source text: every relative `import` and
 * `export … from` (static, `import type` included) and every `import('…')` with a literal path,
 * of every TypeScript file under the given folders and of every project file they reach.
 *
 * A scanner, not a parser (TypeScript 7 ships no JavaScript compiler API to ask): comments, strings,
 * template literals and regular expressions are blanked first, so only code can match. Every
 * relative path must resolve to a file: one that does not is reported, so an import the scanner
 * misreads cannot slip by unseen.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** One import of a project file by another, paths relative to the root with `/` separators. */
export interface ImportEdge {
  from: string;
  to: string;
  /** Every import between the two is `import type` / `export type … from`: erased, so no edge at run time. */
  typeOnly: boolean;
}

/** An import of a package (a bare specifier such as `discord.js` or `node:fs`). */
export interface PackageImport {
  from: string;
  specifier: string;
  typeOnly: boolean;
}

/** The edges found, and what could not be read as one. */
export interface ImportGraph {
  /** Every file walked, sorted. */
  files: string[];
  edges: ImportEdge[];
  packages: PackageImport[];
  /** Relative imports that resolve to no file, as `from: specifier`. */
  unresolved: string[];
}

// Run on the blanked code, where a string's text is spaces: the path is read back from the source.
// `import x from '…'`, `import type { X } from '…'`, `export * from '…'`, `export { a as b } from '…'`:
// between the keyword and `from` only names, braces, commas and `*` can stand.
const fromClause = /(?<![\w$.])(import|export)\s+(type\s+)?[\w$*{},\s]*?\bfrom\s*(['"])([^'"\n]*)\3/dg;
const sideEffectImport = /(?<![\w$.])import\s*(['"])([^'"\n]*)\1/dg;
const dynamicImport = /(?<![\w$.])import\s*\(\s*(['"])([^'"\n]*)\1\s*\)/dg;
const scanned = /\.(ts|mts|mjs|js)$/;

/** The specifiers a file imports, in the order: static, side-effect only, dynamic. */
export function importsOf(source: string): { specifier: string; typeOnly: boolean }[] {
  const code = codeOnly(source);
  const text = (match: RegExpExecArray, group: number) => source.slice(...match.indices![group]!);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  for (const match of code.matchAll(fromClause))
    found.push({ specifier: text(match, 4), typeOnly: match[2] !== undefined });
  for (const match of code.matchAll(sideEffectImport)) found.push({ specifier: text(match, 2), typeOnly: false });
  for (const match of code.matchAll(dynamicImport)) found.push({ specifier: text(match, 2), typeOnly: false });
  return found;
}

// After one of these (or at the start), a `/` begins a regular expression; elsewhere it divides.
const beforeRegex = new Set([
  ...'(,=:[!&|?{};+-*%<>~^'.split(''),
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'void',
  'yield',
  'await',
  'delete',
  'throw',
  'new',
  'instanceof',
  '',
]);

/**
 * The source with the insides of comments, strings, template literals and regular expressions
 * turned to spaces (line breaks kept), so that only code is left to match at the same offsets.
 */
export function codeOnly(source: string): string {
  const out = source.split(''); // UTF-16 units, as offsets into `source` count them
  const blank = (from: number, to: number) => {
    for (let at = from; at < to; at++) if (out[at] !== '\n') out[at] = ' ';
  };
  const templates: number[] = []; // for each `${` open in a template, the brace depth it opened at
  let depth = 0;
  let last = ''; // the last token of code: a punctuation character, a word, or ')' for a literal
  let at = 0;
  const skipTemplate = (from: number): number => {
    // From inside a template literal to its closing backtick, or just past a `${`.
    let end = from;
    while (end < source.length && source[end] !== '`' && !(source[end] === '$' && source[end + 1] === '{'))
      end += source[end] === '\\' ? 2 : 1;
    blank(from, end);
    if (source[end] === '`') {
      last = ')';
      return end + 1;
    }
    templates.push(depth++);
    last = '{';
    return end + 2;
  };
  while (at < source.length) {
    const char = source[at]!;
    const next = source[at + 1];
    if (char === '/' && next === '/') {
      const end = source.indexOf('\n', at);
      blank(at, end < 0 ? source.length : end);
      at = end < 0 ? source.length : end;
    } else if (char === '/' && next === '*') {
      const end = source.indexOf('*/', at + 2);
      blank(at, end < 0 ? source.length : end + 2);
      at = end < 0 ? source.length : end + 2;
    } else if (char === "'" || char === '"') {
      let end = at + 1;
      while (end < source.length && source[end] !== char && source[end] !== '\n') end += source[end] === '\\' ? 2 : 1;
      blank(at + 1, end);
      at = end + 1;
      last = ')';
    } else if (char === '`') {
      at = skipTemplate(at + 1);
    } else if (char === '}' && templates.at(-1) === depth - 1) {
      templates.pop();
      depth -= 1;
      at = skipTemplate(at + 1);
    } else if (char === '/' && beforeRegex.has(last)) {
      let end = at + 1;
      for (
        let inClass = false;
        end < source.length && source[end] !== '\n' && (inClass || source[end] !== '/');
        end++
      ) {
        if (source[end] === '\\') end += 1;
        else if (source[end] === '[') inClass = true;
        else if (source[end] === ']') inClass = false;
      }
      blank(at + 1, end);
      at = end + 1;
      last = ')';
    } else if (/[\w$]/.test(char)) {
      let end = at;
      while (end < source.length && /[\w$]/.test(source[end]!)) end += 1;
      last = source.slice(at, end);
      at = end;
    } else {
      if (char === '{') depth += 1;
      if (char === '}') depth -= 1;
      if (!/\s/.test(char)) last = char;
      at += 1;
    }
  }
  return out.join('');
}

/** Walks the `.ts` files under `folders` (relative to `root`) and every project file they import. */
export function readImportGraph(root: string, folders: readonly string[]): ImportGraph {
  const toKey = (path: string) => relative(root, path).split(sep).join('/');
  const queue = folders.flatMap((folder) => typeScriptFiles(join(root, folder)));
  const seen = new Set(queue);
  const graph: ImportGraph = { files: [], edges: [], packages: [], unresolved: [] };
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const from = toKey(next);
    graph.files.push(from);
    if (!scanned.test(next)) continue;
    for (const { specifier, typeOnly } of importsOf(readFileSync(next, 'utf8'))) {
      if (!specifier.startsWith('.')) {
        graph.packages.push({ from, specifier, typeOnly });
        continue;
      }
      const target = resolveRelative(next, specifier);
      if (target === null) {
        graph.unresolved.push(`${from}: ${specifier}`);
        continue;
      }
      // One edge per pair of files: a type-only one only if every import between them is.
      const to = toKey(target);
      const known = graph.edges.find((edge) => edge.from === from && edge.to === to);
      if (known) known.typeOnly &&= typeOnly;
      else graph.edges.push({ from, to, typeOnly });
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  graph.files.sort();
  return graph;
}

/**
 * The import cycles: each strongly connected part of the graph with more than one file (or a
 * file that imports itself), as the edges inside it, sorted. Cutting those edges ends the cycle.
 */
export function findCycles(edges: readonly ImportEdge[]): ImportEdge[][] {
  const next = new Map<string, string[]>();
  for (const edge of edges) next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  const parts = stronglyConnected(next);
  const partOf = new Map<string, number>();
  parts.forEach((part, index) => {
    for (const file of part) partOf.set(file, index);
  });
  const cycles = parts.map((part) => ({ part, inside: [] as ImportEdge[] }));
  for (const edge of edges) {
    const index = partOf.get(edge.from);
    if (index !== undefined && index === partOf.get(edge.to)) cycles[index]!.inside.push(edge);
  }
  return cycles
    .filter(({ part, inside }) => part.length > 1 || inside.length > 0)
    .map(({ inside }) => inside.sort((a, b) => `${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`)));
}

/** A cycle as lines a person reads: `a.ts → b.ts`, type-only edges marked. */
export function describeCycle(cycle: readonly ImportEdge[]): string {
  return cycle.map((edge) => `${edge.from} → ${edge.to}${edge.typeOnly ? ' (import type)' : ''}`).join('\n');
}

/** Tarjan's algorithm: the graph's strongly connected parts. */
function stronglyConnected(next: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const parts: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const part: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      part.push(member);
    } while (member !== file);
    parts.push(part.sort());
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return parts;
}

/** The path an import points to: as written, `.js` written for `.ts`, or without extension. */
function resolveRelative(fromFile: string, specifier: string): string | null {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? null;
}

/** The `.ts` files under `folder`, installed packages left out. */
function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : typeScriptFiles(path);
      return entry.isFile() && entry.name.endsWith('.ts') ? [path] : [];
    })
    .sort();
}
