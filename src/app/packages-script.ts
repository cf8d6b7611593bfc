/**
 * The packages every start loads (discord.js, openai, pino, zod and theirs) compiled by `npm run
 * build` into one CommonJS script, dist/packages.cjs, and loaded through V8's code cache
 * (dist/packages.<hash>.code-cache, made by the build): V8 takes the compiled functions from the
 * cache instead of compiling the 3 MB again at each start. V8 checks that the cache was made by
 * its own version with the same flags, but of the script only its length: so the script's last
 * line names its cache by a hash of its content, and a script from another build never meets a
 * cache of this one. Node 20 offers a code cache only to a script it is handed as such
 * (`vm.Script`'s `cachedData`; its module compile cache is Node 22's), and its source maps only to
 * modules it loads itself: so the packages, which have no map of ours, are the script, and the
 * project's code stays ES modules, mapped as before.
 *
 * Only the compiled code uses this: the build routes every import of these packages here
 * (scripts/shared-packages.mjs). Under tsx and in the tests, they are imported as usual.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, Script } from 'node:vm';

/** What became of the code cache at this start: used, refused by V8 (another Node, or other V8 flags), or none found. */
export type CodeCacheState = 'used' | 'refused' | 'none';

interface Loaded {
  packages: Record<string, unknown>;
  cache: CodeCacheState;
  cachePath: string;
  script: Script;
}

let loaded: Loaded | null = null;

/** dist/packages.cjs, found from this module's compiled file (dist/ or one of its folders). */
function scriptPath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const file = [here, dirname(here)].map((folder) => join(folder, 'packages.cjs')).find((path) => existsSync(path));
  if (!file) throw new Error(`packages.cjs is not beside ${here}: run npm run build`);
  return file;
}

/** The cache the build made for this script, named on its last line (scripts/shared-packages.mjs). */
function cachePath(file: string, source: string): string {
  // The last line alone: a pattern anchored at the end would still be tried along all 3 MB.
  const name = /\n\/\/# code-cache (packages\.\w+\.code-cache)\s*$/.exec(source.slice(-200))?.[1];
  if (!name) throw new Error(`${file} names no code cache: run npm run build`);
  return join(dirname(file), name);
}

/** Compiles and runs the packages script, with its code cache when there is one. */
function load(useCache: boolean): Loaded {
  const file = scriptPath();
  const source = readFileSync(file, 'utf8');
  const cache = cachePath(file, source);
  const cachedData = useCache && existsSync(cache) ? readFileSync(cache) : undefined;
  const script = new Script(Module.wrap(source), {
    filename: file,
    cachedData,
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} as Record<string, unknown> };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  const state = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'refused' : 'used';
  return { packages: module.exports, cache: state, cachePath: cache, script };
}

/**
 * One of the shared packages, by the specifier the code imports it by ("discord.js", "zod/v4"):
 * the script runs at the first call, and each package when first asked for.
 */
export function sharedPackage(specifier: string): unknown {
  loaded ??= load(true);
  if (!(specifier in loaded.packages)) throw new Error(`${specifier} is not in packages.cjs: run npm run build`);
  return loaded.packages[specifier];
}

/** Whether this start used the code cache; null where the packages were imported as usual (tsx, tests). */
export function packagesCodeCache(): CodeCacheState | null {
  return loaded?.cache ?? null;
}

/**
 * Run by `npm run build` in a process of its own: runs every package of the script, then writes
 * what V8 compiled doing so as the code cache the starts will use.
 */
export function makePackagesCodeCache(): void {
  const { packages, script, cachePath: cache } = load(false);
  for (const specifier of Object.keys(packages)) void packages[specifier];
  writeFileSync(cache, script.createCachedData());
}
