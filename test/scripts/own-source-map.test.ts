import { SourceMap } from 'node:module';
import { decode, encode } from '@jridgewell/sourcemap-codec';
import { describe, expect, it } from 'vitest';
import { ownCodeOnly } from '../../scripts/own-source-map.mjs';

describe("a source map cut down to the project's code", () => {
  // One generated line: our code at columns 0–99, a package's from 100 on (minified code shares lines).
  const map = {
    version: 3,
    sources: ['../src/agent/logger.ts', '../node_modules/openai/internal/tslib.mjs'],
    names: [],
    mappings: encode([
      [
        [0, 0, 10, 0],
        [100, 1, 3, 0],
        [150, 1, 4, 2],
      ],
    ]),
  };
  const entryAt = (column: number) =>
    new SourceMap({ file: 'main.js', sourceRoot: '', sourcesContent: [], ...ownCodeOnly(map).map }).findEntry(
      0,
      column,
    );

  it('maps our code as before', () => {
    expect(entryAt(50)).toMatchObject({ originalSource: '../src/agent/logger.ts', originalLine: 10 });
    expect(ownCodeOnly(map).mapsOwnCode).toBe(true);
  });

  it("does not read a package's code on the same line as ours as ours (node's own reading of the map)", () => {
    const tslib = '../node_modules/openai/internal/tslib.mjs';
    expect(entryAt(120)).toMatchObject({ originalSource: tslib, originalLine: 3 });
    expect(entryAt(160)).toMatchObject({ originalSource: tslib });
    // One segment into the package at most, where it follows ours: the rest of the package's map goes.
    expect(decode(ownCodeOnly(map).map.mappings)).toEqual([
      [
        [0, 0, 10, 0],
        [100, 1, 3, 0],
      ],
    ]);
  });

  it('says when a map has nothing of ours', () => {
    const packages = { ...map, sources: map.sources.map((source) => source.replace('../src/', '../node_modules/x/')) };
    expect(ownCodeOnly(packages).mapsOwnCode).toBe(false);
  });
});
