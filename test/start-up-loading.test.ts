/**
 * What `npm start` loads before it reads a setting (issue 30): the compiled entry's static imports,
 * followed chunk by chunk. Packages that only a setting or a first use needs are loaded on demand
 * (a dynamic import, its own chunk), so they must not be among them.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from './support/run-process.ts';

/** Every file an ES module loads before it runs: its static imports, and theirs (not `import()`). */
function staticallyLoaded(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    // esbuild's output: `import{a}from"./chunks/x.js"` and `import"./chunks/y.js"`; never a string in `import(…)`.
    for (const match of source.matchAll(/(?:^|[;}\s])(?:import|export)(?:[^"'();]*?from)?\s*"(\.[^"]+)"/g))
      visit(resolve(dirname(file), match[1]!));
  };
  visit(entry);
  return seen;
}

/** The packages bundled into a file, read from its source map's sources. */
function packagesIn(file: string): string[] {
  const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
  return map.sources.flatMap((source) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1] ?? []);
}

describe('npm start loads at start only what every start needs', () => {
  it('loads discord.js, openai and zod, but not the MCP SDK, ajv, html-to-text or OpenTelemetry', () => {
    const loaded = new Set([...staticallyLoaded(`${projectRoot}dist/main.js`)].flatMap(packagesIn));
    expect([...loaded]).toEqual(expect.arrayContaining(['discord.js', 'openai', 'zod']));
    expect(
      [...loaded].filter((name) => /^(@modelcontextprotocol\/sdk|ajv|html-to-text|@opentelemetry\/.*)$/.test(name)),
    ).toEqual([]);
  });

  it('npm run chat loads nothing of OpenTelemetry either (only an OTLP endpoint loads it)', () => {
    const loaded = new Set([...staticallyLoaded(`${projectRoot}dist/chat.js`)].flatMap(packagesIn));
    expect([...loaded]).toEqual(expect.arrayContaining(['openai', 'zod']));
    expect([...loaded].filter((name) => name.startsWith('@opentelemetry/'))).toEqual([]);
  });
});
