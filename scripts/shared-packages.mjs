/**
 * The packages every start loads, built into one CommonJS script (dist/packages.cjs) that the
 * compiled ES modules take them from, loaded with V8's code cache (src/app/packages-script.ts says
 * why). Plain JavaScript: it runs at install time.
 *
 * - `sharedPackages(pattern)`: an esbuild plugin for the ES module build. Every import whose
 *   specifier matches (from the project's code or from a package, "zod" as well as "zod/v4") goes
 *   through one small module per specifier, which re-exports `sharedPackage(specifier)`: made an
 *   ES module once for all the modules that import it (each copy of discord.js's 535 names cost
 *   every start: BENCHMARKS.md), and one instance of each package for every chunk, the ones
 *   loaded on demand included (the MCP SDK's zod is the bot's).
 * - `buildPackagesScript(esbuild, specifiers, outfile)`: the script, a getter per specifier seen.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileOptions } from './compile-options.mjs';

const packagesScript = fileURLToPath(new URL('../src/app/packages-script.ts', import.meta.url));

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const namespace = 'shared-package';
/** `@scope/name/x` → `@scope/name`, `zod/v4` → `zod`. */
const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

export function sharedPackages(pattern) {
  const specifiers = new Set();
  const plugin = {
    name: 'shared-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.namespace === namespace) return { path: args.path, namespace: 'shared-package-exports' };
        // Not inside another resolution of a plugin (this one's, or another's: each would call the other).
        if (!pattern.test(args.path) || args.pluginData !== undefined) return undefined;
        // Only the project's own copy (the script's): a package that brings a copy of its own, of
        // another version, keeps it, bundled as usual.
        const { kind, resolveDir, importer } = args;
        const resolved = await build.resolve(args.path, { kind, resolveDir, importer, pluginData: namespace });
        if (!resolved.path.startsWith(join(projectRoot, 'node_modules', packageName(args.path), sep))) return undefined;
        specifiers.add(args.path);
        return { path: args.path, namespace };
      });
      // An ES module that re-exports the CommonJS one below: esbuild copies its names once, here.
      // Named exports only (a default one would be a second copy): `import { OpenAI } from 'openai'`.
      build.onLoad({ filter: /.*/, namespace }, (args) => ({
        contents: `export * from ${JSON.stringify(args.path)};`,
        resolveDir: process.cwd(),
      }));
      build.onLoad({ filter: /.*/, namespace: 'shared-package-exports' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(packagesScript)}).sharedPackage(${JSON.stringify(args.path)});`,
        resolveDir: process.cwd(),
        loader: 'js',
      }));
    },
  };
  return { plugin, specifiers };
}

/**
 * The script: `module.exports` has a getter per specifier, which runs that package when first read.
 * Compiled with the build's options but as CommonJS (no ES module banner). Its last line
 * names its code cache by a hash of the script (src/app/packages-script.ts says why).
 */
export async function buildPackagesScript(esbuild, specifiers, outfile) {
  const { banner: _esmOnly, ...options } = compileOptions;
  // In a fixed order: the build resolves them in any order, and the same code makes the same script.
  const getters = [...specifiers]
    .sort((a, b) => a.localeCompare(b, 'en'))
    .map((specifier) => `get ${JSON.stringify(specifier)}() { return require(${JSON.stringify(specifier)}); }`);
  await esbuild.build({
    ...options,
    format: 'cjs',
    stdin: { contents: `module.exports = {\n${getters.join(',\n')}\n};`, resolveDir: process.cwd(), loader: 'js' },
    outfile,
  });
  const script = readFileSync(outfile, 'utf8');
  const hash = createHash('sha256').update(script).digest('hex').slice(0, 16);
  writeFileSync(outfile, `${script}//# code-cache packages.${hash}.code-cache\n`);
}
