/**
 * A production install (`npm ci --omit=dev`, the Dockerfile's runtime stage) holds the production
 * dependencies and dist/ alone: every package the compiled code loads from node_modules must be one
 * of them, or one of discord.js's optional speed-ups, which it loads in a try and does without, or
 * one named in a fallback the supported Node never takes (`untakenFallbacks`).
 * (yaml, loaded by node's require when a models file is read, was once a development dependency:
 * every MODELS_FILE start in a container failed.)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { optionalPackages, untakenFallbacks } from '../../scripts/compile-options.mjs';
import { packagesLoadedBy } from '../support/compiled-packages.ts';
import { projectRoot } from '../support/run-process.ts';

describe('what the compiled code loads from node_modules', () => {
  const manifest = JSON.parse(readFileSync(`${projectRoot}package.json`, 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const loaded = packagesLoadedBy(`${projectRoot}dist`);

  it('finds the packages left outside the bundle and those loaded by require (the scan sees them)', () => {
    expect(loaded).toEqual(expect.arrayContaining(['better-sqlite3', 'yaml']));
  });

  it('is a production dependency, an optional speed-up of discord.js, or a fallback Node 20 never takes', () => {
    const production = new Set([...Object.keys(manifest.dependencies), ...optionalPackages, ...untakenFallbacks]);
    expect(loaded.filter((name) => !production.has(name))).toEqual([]);
  });
});
