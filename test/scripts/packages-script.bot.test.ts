/**
 * The packages every start loads, taken from dist/packages.cjs with V8's code cache
 * (src/app/packages-script.ts), as the compiled code runs them: in a node process of its own.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../support/run-process.ts';

/** In a compiled dist/: takes zod and discord.js from the script, uses them, says what became of the cache. */
function startIn(dist: string): { cache: string; parsed: string; intents: number } {
  const script = `const packages = await import(${JSON.stringify(join(dist, 'app/packages-script.js'))});
    const { z } = packages.sharedPackage('zod');
    const { GatewayIntentBits } = packages.sharedPackage('discord.js');
    console.log(JSON.stringify({
      parsed: z.object({ name: z.string() }).parse({ name: 'Ada' }).name,
      intents: GatewayIntentBits.MessageContent,
      cache: packages.packagesCodeCache(),
    }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as {
    cache: string;
    parsed: string;
    intents: number;
  };
}

let copy: string | undefined;
afterEach(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
  copy = undefined;
});

/** The code cache the build made in `dist` (named by a hash of the script). */
function cacheOf(dist: string): string {
  return join(
    dist,
    readdirSync(dist).find((name) => name.endsWith('.code-cache'))!,
  );
}

/** A copy of dist/ to spoil. */
function copyOfDist(): string {
  copy = mkdtempSync(join(tmpdir(), 'packages-script-'));
  cpSync(join(projectRoot, 'dist'), copy, { recursive: true });
  return copy;
}

describe('the packages script', () => {
  it('runs the packages with the code cache the build made, which V8 takes', () => {
    expect(startIn(join(projectRoot, 'dist'))).toEqual({ parsed: 'Ada', intents: 1 << 15, cache: 'used' });
  });

  it('runs them all the same, only slower, with a cache V8 refuses (here a spoiled one) or none', () => {
    const dist = copyOfDist();
    const cache = cacheOf(dist);
    writeFileSync(cache, Buffer.alloc(statSync(cache).size, 7));
    expect(startIn(dist)).toEqual({ parsed: 'Ada', intents: 1 << 15, cache: 'refused' });
    rmSync(cache);
    expect(startIn(dist)).toEqual({ parsed: 'Ada', intents: 1 << 15, cache: 'none' });
  });

  it('never takes the cache of another build of the script, though V8 would (it checks only its length)', () => {
    const dist = copyOfDist();
    const script = join(dist, 'packages.cjs');
    const source = readFileSync(script, 'utf8');
    // The same length, another build: its last line names another cache, which is not there.
    writeFileSync(
      script,
      source.replace(
        /packages\.(\w)(\w+)\.code-cache\n$/,
        (_, first: string, rest: string) => `packages.${first === '0' ? '1' : '0'}${rest}.code-cache\n`,
      ),
    );
    expect(readFileSync(script, 'utf8')).not.toBe(source);
    expect(startIn(dist)).toEqual({ parsed: 'Ada', intents: 1 << 15, cache: 'none' });
    // What the name guards against: V8 itself takes the other script's cache.
    const named = /(packages\.\w+\.code-cache)\n$/.exec(readFileSync(script, 'utf8'))![1]!;
    renameSync(cacheOf(dist), join(dist, named));
    expect(startIn(dist).cache).toBe('used');
  });

  it('says to rebuild when asked for a package the build did not put in', () => {
    const script = `const packages = await import(${JSON.stringify(join(projectRoot, 'dist/app/packages-script.js'))});
      try { packages.sharedPackage('left-pad'); } catch (error) { console.log(error.message); }`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })).toContain(
      'left-pad is not in packages.cjs: run npm run build',
    );
  });
});
