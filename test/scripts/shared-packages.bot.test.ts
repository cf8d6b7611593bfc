/**
 * The build's routing of the packages every start loads (scripts/shared-packages.mjs): an import of
 * the project's copy goes to the packages script; a package's own copy of another version stays
 * bundled as usual, never swapped for the project's. The script is the same whatever order the
 * build met the packages in, and so is the name of its code cache.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { buildPackagesScript, sharedPackages } from '../../scripts/shared-packages.mjs';
import { projectRoot } from '../support/run-process.ts';

let folder: string | undefined;
afterEach(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

describe('the shared packages plugin', () => {
  it("routes the project's copy of a package to the script, and leaves a package's own copy bundled", async () => {
    folder = mkdtempSync(join(tmpdir(), 'shared-packages-'));
    // A package with a zod of its own (another major version, say), and code that imports both.
    const nested = join(folder, 'node_modules', 'old-lib', 'node_modules', 'zod');
    mkdirSync(nested, { recursive: true });
    writeFileSync(join(nested, 'package.json'), JSON.stringify({ name: 'zod', version: '3.0.0', main: 'index.js' }));
    writeFileSync(join(nested, 'index.js'), "exports.z = 'the old copy of zod';");
    writeFileSync(
      join(folder, 'node_modules', 'old-lib', 'package.json'),
      JSON.stringify({ name: 'old-lib', main: 'index.js' }),
    );
    writeFileSync(join(folder, 'node_modules', 'old-lib', 'index.js'), "module.exports = require('zod').z;");
    writeFileSync(
      join(folder, 'entry.js'),
      "import { OpenAI } from 'openai'; import old from 'old-lib'; console.log(OpenAI, old);",
    );

    const shared = sharedPackages(/^(openai|zod)(\/|$)/);
    const result = await esbuild.build({
      entryPoints: [join(folder, 'entry.js')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      // openai from the project's node_modules, as the bot's code finds it.
      nodePaths: [join(projectRoot, 'node_modules')],
      plugins: [shared.plugin],
      logLevel: 'silent',
    });
    const output = result.outputFiles[0]!.text;

    expect([...shared.specifiers]).toEqual(['openai']);
    expect(output).toContain('sharedPackage("openai")');
    expect(output).toContain('the old copy of zod');
    expect(output).not.toContain('sharedPackage("zod")');
  });
});

describe('the packages script', () => {
  it('is the same whatever order the build met the packages in', async () => {
    folder = mkdtempSync(join(tmpdir(), 'packages-script-'));
    const built = async (specifiers: string[], name: string) => {
      await buildPackagesScript(esbuild, specifiers, join(folder!, name));
      return readFileSync(join(folder!, name), 'utf8');
    };

    const one = await built(['zod/v4-mini', 'zod'], 'one.cjs');
    const other = await built(['zod', 'zod/v4-mini'], 'other.cjs');

    expect(one).toContain('"zod/v4-mini"');
    expect(other).toBe(one);
  });
});
