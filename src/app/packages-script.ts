/**
 * The packages every start loads (discord.js, openai, zod and theirs) compiled by `npm run build`
 * into one CommonJS script, dist/packages.cjs, and loaded through V8's code cache
 * (dist/packages.code-cache, made by the build): V8 takes the compiled functions from the cache
 * instead of compiling the 3 MB again at each start. Node 20 offers a code cache only to a script it
 * is handed as such (`vm.Script`'s `cachedData`; its module compile cache is Node 22's), and its
 * source maps only to modules it loads itself: so the packages, which have no map of ours, are the
 * script, and the project's code stays ES modules, mapped as before.
 *
 * Only the compiled code uses this: the build routes every import of these packages here
 * (scripts/shared-packages.mjs). Under tsx and in the tests, they are imported as usual.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, Script } from 'node:vm';

/** What became of the code cache at this start: used, refused by V8 (another Node made it), or none found. */
export type CodeCacheState = 'used' | 'refused' | 'none';

interface Loaded {
  packages: Record<string, unknown>;
  cache: CodeCacheState;
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

const cachePath = (script: string) => script.replace(/\.cjs$/, '.code-cache');

/** Compiles and runs the packages script, with its code cache when there is one. */
function load(useCache: boolean): Loaded {
  const file = scriptPath();
  const cachedData = useCache && existsSync(cachePath(file)) ? readFileSync(cachePath(file)) : undefined;
  const script = new Script(Module.wrap(readFileSync(file, 'utf8')), {
    filename: file,
    cachedData,
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} as Record<string, unknown> };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  const cache = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'refused' : 'used';
  return { packages: module.exports, cache, script };
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
  const { packages, script } = load(false);
  for (const specifier of Object.keys(packages)) void packages[specifier];
  writeFileSync(cachePath(scriptPath()), script.createCachedData());
}
