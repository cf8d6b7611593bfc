/**
 * What `npm start` loads before it reads a setting (issue 30): the compiled entry's static imports,
 * followed chunk by chunk, and the packages script (dist/packages.cjs: discord.js, openai, pino, zod,
 * src/app/packages-script.ts). Packages that only a setting or a first use needs are loaded on
 * demand (a dynamic import, its own chunk), so they must not be among them.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { decode } from '@jridgewell/sourcemap-codec';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/run-process.ts';

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

/** The packages inside the packages script, by esbuild's names for their modules ("node_modules/x/…"). */
function packagesInScript(): string[] {
  const source = readFileSync(`${projectRoot}dist/packages.cjs`, 'utf8');
  return [...source.matchAll(/"node_modules\/((?:@[^/"]+\/)?[^/"]+)\//g)].map((match) => match[1]!);
}

/**
 * Every package `entry` loads before it runs: those in its chunks, and those its chunks take from
 * the packages script (by the module each has there for a specifier: "shared-package-exports:zod").
 * The script's own dependencies (discord.js's undici…) are not named: the script holds none of the
 * packages loaded on demand at all (below).
 */
function loadedAtStart(entry: string): Set<string> {
  const files = [...staticallyLoaded(`${projectRoot}dist/${entry}`)];
  const taken = files.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/"shared-package-exports:((?:@[^/"]+\/)?[^/"]+)/g)].map(
      (match) => match[1]!,
    ),
  );
  return new Set([...files.flatMap(packagesIn), ...taken]);
}

describe('npm start loads at start only what every start needs', () => {
  it('loads discord.js, openai, pino and zod, but not the MCP SDK, ajv, html-to-text, yaml or OpenTelemetry', () => {
    const loaded = loadedAtStart('main.js');
    expect([...loaded]).toEqual(expect.arrayContaining(['discord.js', 'openai', 'pino', 'zod']));
    expect(
      [...loaded].filter((name) =>
        /^(@modelcontextprotocol\/sdk|ajv|html-to-text|yaml|@opentelemetry\/.*)$/.test(name),
      ),
    ).toEqual([]);
  });

  it('npm run chat loads nothing of OpenTelemetry either (only an OTLP endpoint loads it)', () => {
    const loaded = loadedAtStart('chat.js');
    expect([...loaded]).toEqual(expect.arrayContaining(['openai', 'zod']));
    expect([...loaded].filter((name) => name.startsWith('@opentelemetry/'))).toEqual([]);
  });

  it('the packages script holds nothing that only a setting or a first use needs', () => {
    expect(
      packagesInScript().filter((name) =>
        /^(@modelcontextprotocol\/sdk|ajv|html-to-text|yaml|gpt-tokenizer|@opentelemetry\/.*)$/.test(name),
      ),
    ).toEqual([]);
  });
});

describe('discord.js in the compiled code', () => {
  it('is in the packages script, taken from it by the modules through one module made an ES module once (each copy of its 535 names cost every start)', () => {
    expect(packagesInScript()).toContain('discord.js');
    const folder = `${projectRoot}dist/chunks/`;
    const sources = readdirSync(folder)
      .filter((file) => file.endsWith('.js'))
      .map((file) => readFileSync(`${folder}${file}`, 'utf8'));
    // Nor is any of the script's packages in a chunk: one instance of each.
    expect(sources.filter((source) => /"node_modules\/(discord\.js|openai|pino|zod)\//.test(source))).toEqual([]);
    const holder = sources.find((source) => source.includes('"shared-package-exports:discord.js"'))!;
    const name = /var (require_\w+)=__commonJS\(\{"shared-package-exports:discord\.js"/.exec(holder)![1]!;
    const copies = sources.reduce((sum, source) => sum + source.split(`__toESM(${name}()`).length - 1, 0);
    expect(copies).toBe(1);
  });
});

describe("the compiled code's source maps", () => {
  /** The chunks and their maps' sources. */
  const chunks = () => {
    const folder = `${projectRoot}dist/chunks/`;
    return readdirSync(folder)
      .filter((file) => file.endsWith('.js'))
      .map((file) => {
        const map = JSON.parse(readFileSync(`${folder}${file}.map`, 'utf8')) as { sources: string[]; mappings: string };
        return {
          path: `${folder}${file}`,
          map,
          // The comment node reads, on the last line (the token tables hold the word too).
          linked: /\n\/\/# sourceMappingURL=[^\n]*\n?$/.test(readFileSync(`${folder}${file}`, 'utf8')),
        };
      });
  };

  it("map the project's code and nothing inside a package; a chunk of packages alone is not pointed to its map", () => {
    const all = chunks();
    for (const { path, map, linked } of all) {
      const ours = map.sources.map((source) => !source.includes('node_modules/'));
      const lines = decode(map.mappings);
      // Into a package only where its code follows ours on a line (scripts/own-source-map.mjs).
      expect(
        lines.flatMap((line) =>
          line.filter((segment, index) => !ours[segment[1]!] && (index === 0 || !ours[line[index - 1]![1]!])),
        ),
        path,
      ).toEqual([]);
      expect(linked, path).toBe(lines.flat().some((segment) => ours[segment[1]!]));
    }
    // The token encoding (2.7 MB of tables) and OpenTelemetry's API are packages alone.
    expect(all.filter(({ linked }) => !linked).map(({ map }) => packagesOf(map.sources))).toEqual(
      expect.arrayContaining([['gpt-tokenizer'], ['@opentelemetry/api']]),
    );
  });

  it('still lead a stack in the project code back to its TypeScript', () => {
    const shared = chunks().find(({ path }) => readFileSync(path, 'utf8').includes('function splitMessage('))!;
    const line = readFileSync(shared.path, 'utf8')
      .split('\n')
      .findIndex((text) => text.includes('function splitMessage('));
    const column = readFileSync(shared.path, 'utf8').split('\n')[line]!.indexOf('function splitMessage(');
    // What node itself makes of the map, as `npm start` runs it (--enable-source-maps).
    const script = `import { findSourceMap } from 'node:module'; await import(${JSON.stringify(shared.path)});
      console.log(JSON.stringify(findSourceMap(${JSON.stringify(shared.path)}).findEntry(${line}, ${column})));`;
    const entry = JSON.parse(
      execFileSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], {
        encoding: 'utf8',
      }),
    ) as { originalSource: string; originalLine: number };
    expect(entry.originalSource).toMatch(/\/src\/posts\/split-message\.ts$/);
    const source = readFileSync(`${projectRoot}src/posts/split-message.ts`, 'utf8').split('\n');
    expect(source[entry.originalLine]).toContain('function splitMessage(');
  });
});

function packagesOf(sources: readonly string[]): string[] {
  return [...new Set(sources.flatMap((source) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1] ?? []))];
}
