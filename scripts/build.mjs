/**
 * `npm run build` (and `prepare`, so `npm install` / `npm ci` builds it): the bot and its operator
 * commands compiled into `dist/`, one ES module per entry with the code they share split into
 * chunks, for `npm start` and the rest to run as plain JavaScript: no TypeScript compiled at start,
 * and no tsx or esbuild in the production install.
 *
 * The pure-JavaScript packages are bundled in (tree-shaken, so the install carries only what runs:
 * of gpt-tokenizer's encodings only the two the token counter loads). The ones every start loads
 * (discord.js, openai, pino, zod) go into dist/packages.cjs, loaded with V8's code cache
 * (src/app/packages-script.ts), the rest into the chunks. Left outside, installed as production
 * dependencies: better-sqlite3 (a native addon), sqlite-vec (a SQLite extension, a binary per platform) and yaml (read by node's require, for a models
 * file). discord.js's optional native speed-ups (zlib-sync, bufferutil, utf-8-validate) stay
 * optional and outside.
 *
 * Written in plain JavaScript: it runs at install time, before anything could compile it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { compileOptions, sharedPackagePattern } from './compile-options.mjs';
import { buildPackagesScript, sharedPackages } from './shared-packages.mjs';

const entries = [
  'src/main.ts',
  'src/chat.ts',
  'src/steps.ts',
  'src/deploy-commands.ts',
  'src/doctor.ts',
  'src/health.ts',
  'src/move-server.ts',
  'src/reshard.ts',
  'src/backup.ts',
  'src/restore.ts',
  'src/forget.ts',
  // Not a command: what the build runs to make the packages script's code cache (below).
  'src/app/packages-script.ts',
];
/** The packages every start loads, taken from dist/packages.cjs (scripts/shared-packages.mjs). */
const shared = sharedPackages(sharedPackagePattern);

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  // A production install (`npm ci --omit=dev`) has no esbuild: dist/ comes from the build stage.
  console.log('build: esbuild is not installed (a production install); dist/ is left as it is');
  process.exit(0);
}
// Its source map codec is a development dependency, as esbuild is.
const { ownCodeOnly } = await import('./own-source-map.mjs');

rmSync('dist', { recursive: true, force: true });
const result = await esbuild.build({
  ...compileOptions,
  plugins: [shared.plugin],
  entryPoints: entries,
  outdir: 'dist',
  splitting: true,
  sourcemap: 'linked',
  sourcesContent: false, // the maps point into src/, which the repository holds
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
});
await buildPackagesScript(esbuild, shared.specifiers, 'dist/packages.cjs');
// In a process of its own, as a start would run them: the packages run, and V8's compiled code is kept.
execFileSync(
  process.execPath,
  ['--input-type=module', '-e', "(await import('./dist/app/packages-script.js')).makePackagesCodeCache();"],
  { stdio: 'inherit' },
);
const slimmed = mapOwnCodeOnly(Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js.map')));
const code = Object.entries(result.metafile.outputs).reduce(
  (sum, [file, output]) => sum + (file.endsWith('.js') ? output.bytes : 0),
  0,
);
console.log(
  `build: ${entries.length} entries into dist/ (${(code / 2 ** 20).toFixed(1)} MiB, and ${(slimmed.kept / 2 ** 20).toFixed(1)} MiB of source maps of the project's code), ${[...shared.specifiers].join(', ')} into dist/packages.cjs with its code cache`,
);

/**
 * The source maps map the project's code alone: the mappings into packages (discord.js, zod, the
 * token encodings…) are taken out, and a chunk of packages alone loses the comment that points
 * node to its map. With --enable-source-maps, node reads every map it is pointed to as a module
 * loads, and decodes one whole the first time a stack passes through it: discord.js's chunk map
 * (1.3 MB) took 150 ms of the bot's first answer, for an error its HTTP client made and dropped.
 * Stacks in the project's code are mapped as before; frames inside a package point into the
 * chunk, whose functions keep their names. `sources` is kept whole (it says what a chunk holds).
 */
function mapOwnCodeOnly(mapFiles) {
  let kept = 0;
  for (const mapFile of mapFiles) {
    const { map, mapsOwnCode } = ownCodeOnly(JSON.parse(readFileSync(mapFile, 'utf8')));
    const text = JSON.stringify(map);
    writeFileSync(mapFile, text);
    kept += text.length;
    if (mapsOwnCode) continue;
    const jsFile = mapFile.slice(0, -'.map'.length);
    writeFileSync(jsFile, readFileSync(jsFile, 'utf8').replace(/\n\/\/# sourceMappingURL=[^\n]*\n?$/, '\n'));
  }
  return { kept };
}
