/**
 * Runs a bench as the bot's code ships: the bench's TypeScript compiled and bundled with the
 * options of `npm run build` (scripts/compile-options.mjs), then run by node. Through tsx, every
 * function the project makes gets its name set at run time (tsx compiles with esbuild's
 * keepNames; `npm run build` does not), which the installed packages a bench compares against
 * never pay: up to 3 % of the agent loop's samples, none of them in production.
 *
 *   node bench/compiled.mjs bench/agent-loop.ts [-- the bench's own arguments]
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/compiled.mjs bench/agent-loop.ts   # profiles the bench too
 *
 * The bundle is written beside its entry (bench/.agent-loop.compiled.mjs), so that the paths a
 * bench finds its helpers by, relative to its own file, still hold; with a source map, for
 * profiles; and the packages every start loads into bench/packages.cjs, as `npm run build` does.
 * The packages installed for the bench alone (bench/node_modules: the frameworks it compares
 * against) are not bundled: they run as their authors ship them.
 */
import { spawnSync } from 'node:child_process';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { compileOptions, sharedPackagePattern } from '../scripts/compile-options.mjs';
import { buildPackagesScript, sharedPackages } from '../scripts/shared-packages.mjs';

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node bench/compiled.mjs <bench entry .ts> [-- arguments]');
  process.exit(2);
}
const outfile = join(dirname(entry), `.${basename(entry, '.ts')}.compiled.mjs`);

/** Packages resolved into bench/node_modules stay imports, found there at run time. */
const benchPackagesOutside = {
  name: 'bench-packages-outside',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, async (args) => {
      // Not inside a plugin's own resolution (this one's, or the shared packages' one).
      if (args.pluginData !== undefined) return undefined;
      const resolved = await builder.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'resolving',
      });
      return resolved.path.includes('/bench/node_modules/') ? { path: args.path, external: true } : resolved;
    });
  },
};

/**
 * Every bench but the frameworks one takes the bot's own packages (its openai, its zod), as they
 * ship, even once bench:frameworks has installed copies of its own in bench/node_modules, which
 * Node's resolution would find first from a file in bench/. The frameworks bench takes its
 * contenders' copies (bench/package.json).
 */
const benchFolder = resolve(dirname(entry));
const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const botPackagesFirst = {
  name: 'bot-packages-first',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.resolveDir !== benchFolder || args.pluginData !== undefined) return undefined;
      const { kind, importer } = args;
      const resolved = await builder.resolve(args.path, { kind, importer, resolveDir: projectRoot });
      if (resolved.errors.length > 0) return undefined;
      return { path: resolved.path, namespace: resolved.namespace, external: resolved.external };
    });
  },
};
const ownPackages = basename(entry) === 'frameworks.ts' ? [] : [botPackagesFirst];

// The packages every start loads come from a packages script beside the bundle, as in dist/ (no
// code cache: a bench times runs after its warm-up, not a start).
const shared = sharedPackages(sharedPackagePattern);
await esbuild.build({
  ...compileOptions,
  entryPoints: [entry],
  outfile,
  sourcemap: 'linked',
  plugins: [...ownPackages, shared.plugin, benchPackagesOutside],
});
await buildPackagesScript(esbuild, shared.specifiers, join(dirname(entry), 'packages.cjs'));
const args = rest[0] === '--' ? rest.slice(1) : rest;
// The bench in a process of its own, with this one's node options (a --cpu-prof reaches it too).
const { status } = spawnSync(process.execPath, [...process.execArgv, outfile, ...args], { stdio: 'inherit' });
process.exit(status ?? 1);
