/**
 * The shape of the house, checked on the source: no import cycles anywhere (the bot's code, its
 * tests and benches), and an agent core that stands alone (DESIGN.md, "The shape of the house"):
 * it imports only itself, src/agent/errors.ts and the leaf helpers, and only its adapter imports openai.
 * Type-only imports count as edges too: they make no cycle at run time, but they tie the files'
 * meanings together all the same, and a cycle of types is one refactor away from a runtime one.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/run-process.ts';
import { describeCycle, findCycles, importsOf, readImportGraph } from '../support/import-graph.ts';

const graph = readImportGraph(projectRoot, ['src', 'commands', 'tools', 'db', 'test', 'bench']);

describe('the import graph', () => {
  it('reads every relative import as a file', () => {
    expect(graph.unresolved).toEqual([]);
    expect(graph.files).toContain('src/main.ts');
  });

  it('has no cycle', () => {
    expect(findCycles(graph.edges).map(describeCycle)).toEqual([]);
  });
});

const isOpenAI = (specifier: string) => specifier === 'openai' || specifier.startsWith('openai/');

/** Helpers that depend on nothing of the project (cutting text, wording durations, capped reads): every part may use them. */
const leaf = (file: string) => file.startsWith('src/text/') || file.startsWith('src/streams/');

describe('the leaf helpers (src/text, src/streams)', () => {
  it('import nothing of the project but each other, and no package', () => {
    expect(graph.edges.filter((edge) => leaf(edge.from) && !leaf(edge.to))).toEqual([]);
    expect(graph.packages.filter((entry) => leaf(entry.from) && !entry.specifier.startsWith('node:'))).toEqual([]);
  });
});

describe('the agent core (src/agent)', () => {
  const core = (file: string) => file.startsWith('src/agent/');
  // Everything src/agent reaches (a Set visits what is added while it is iterated).
  const reached = new Set(graph.files.filter(core));
  for (const file of reached) for (const edge of graph.edges) if (edge.from === file) reached.add(edge.to);
  const packages = graph.packages.filter((entry) => reached.has(entry.from));

  it('imports no project file outside src/agent but src/agent/errors.ts and the leaf helpers', () => {
    expect([...reached].filter((file) => !core(file) && file !== 'src/agent/errors.ts' && !leaf(file))).toEqual([]);
  });

  it('imports neither discord.js nor better-sqlite3', () => {
    const forbidden = /^(discord\.js|@discordjs\/|better-sqlite3)/;
    expect(packages.filter((entry) => forbidden.test(entry.specifier))).toEqual([]);
  });

  it('knows no model server: it imports no openai', () => {
    expect(packages.filter((entry) => isOpenAI(entry.specifier))).toEqual([]);
  });
});

describe('the model servers (src/model-servers)', () => {
  it('are reached through one adapter, the only file that imports openai', () => {
    // The benches compare other agent loops on the same openai client: they are not the bot.
    const openai = graph.packages.filter((entry) => isOpenAI(entry.specifier) && !entry.from.startsWith('bench/'));
    expect(new Set(openai.map((entry) => entry.from))).toEqual(new Set(['src/model-servers/openai-transport.ts']));
  });
});

describe('the import scanner', () => {
  it('reads static, type-only, multi-line, re-exported and dynamic imports, and none in comments or strings', () => {
    const source = [
      '/** An example: `import { nope } from "./in-a-comment.ts"` */',
      "// import { alsoNot } from './line-comment.ts';",
      "const text = \"import('./in-a-string.ts')\", quote = /['\"]/, half = 4 / 2, shown = `${half} import './in-a-template.ts'`;",
      'import {',
      '  first,',
      '  second as renamed,',
      "} from './multi-line.ts';",
      "import type { Shape } from './types.ts';",
      "import { type Kept } from './kept-at-run-time.ts';",
      "export * from './everything.ts';",
      "export type { Shape as Form } from './re-exported-type.ts';",
      "import './side-effect.ts';",
      "const later = await import('./dynamic.ts');",
    ].join('\n');
    expect(importsOf(source)).toEqual([
      { specifier: './multi-line.ts', typeOnly: false },
      { specifier: './types.ts', typeOnly: true },
      // Under verbatimModuleSyntax an inline `type` keeps the import statement, so it stays an edge.
      { specifier: './kept-at-run-time.ts', typeOnly: false },
      { specifier: './everything.ts', typeOnly: false },
      { specifier: './re-exported-type.ts', typeOnly: true },
      { specifier: './side-effect.ts', typeOnly: false },
      { specifier: './dynamic.ts', typeOnly: false },
    ]);
  });

  it('finds a cycle through a type-only and a dynamic import, and names an import that resolves to nothing', () => {
    const root = mkdtempSync(join(tmpdir(), 'import-graph-'));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write('src/a.ts', "import { b } from './inner/b.ts';\nimport { gone } from './gone.ts';\n");
    write('src/inner/b.ts', "import type { C } from '../../db/c.ts';\n");
    write('db/c.ts', "export const a = () => import('../src/a.ts');\n");
    write('src/leaf.ts', "import { a } from './a.ts';\n");

    const found = readImportGraph(root, ['src']);
    expect(found.files).toEqual(['db/c.ts', 'src/a.ts', 'src/inner/b.ts', 'src/leaf.ts']);
    expect(found.unresolved).toEqual(['src/a.ts: ./gone.ts']);
    expect(findCycles(found.edges).map(describeCycle)).toEqual([
      ['db/c.ts → src/a.ts', 'src/a.ts → src/inner/b.ts', 'src/inner/b.ts → db/c.ts (import type)'].join('\n'),
    ]);
  });
});
