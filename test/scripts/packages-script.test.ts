/**
 * The packages every start loads, taken from dist/packages.cjs with V8's code cache
 * (src/app/packages-script.ts), as the compiled code runs them: in a node process of its own.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

  it('runs them all the same, only slower, with a cache V8 refuses (made by another Node) or none', () => {
    const dist = copyOfDist();
    const cache = join(dist, 'packages.code-cache');
    writeFileSync(cache, Buffer.alloc(statSync(cache).size, 7));
    expect(startIn(dist)).toEqual({ parsed: 'Ada', intents: 1 << 15, cache: 'refused' });
    rmSync(cache);
    expect(startIn(dist)).toEqual({ parsed: 'Ada', intents: 1 << 15, cache: 'none' });
  });

  it('says to rebuild when asked for a package the build did not put in', () => {
    const script = `const packages = await import(${JSON.stringify(join(projectRoot, 'dist/app/packages-script.js'))});
      try { packages.sharedPackage('left-pad'); } catch (error) { console.log(error.message); }`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })).toContain(
      'left-pad is not in packages.cjs: run npm run build',
    );
  });
});
