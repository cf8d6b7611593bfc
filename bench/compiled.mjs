/**
 * Runs a bench as the bot's code ships: the bench's TypeScript compiled and bundled with the
 * options of `npm run build` (scripts/compile-options.mjs), then run by node. Through tsx, every
 * function the project makes gets its name set at run time (tsx compiles with esbuild's
 * keepNames; `npm run build` does not), which the bundled openai client of the floor never pays:
 * up to 3 % of the agent loop's samples, none of them in production.
 *
 *   node bench/compiled.mjs bench/agent-loop.ts [-- the bench's own arguments]
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/compiled.mjs bench/agent-loop.ts   # profiles the bench too
 *
 * The bundle is written to .bench-compiled/ (beside bench/, so that the paths the bench finds
 * its helpers by, relative to its own file, still hold), with a source map for profiles.
 */
import { spawnSync } from 'node:child_process';
import { basename } from 'node:path';
import { build } from 'esbuild';
import { compileOptions } from '../scripts/compile-options.mjs';

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node bench/compiled.mjs <bench entry .ts> [-- arguments]');
  process.exit(2);
}
const outfile = new URL(`../.bench-compiled/${basename(entry).replace(/\.ts$/, '.mjs')}`, import.meta.url).pathname;
await build({ ...compileOptions, entryPoints: [entry], outfile, sourcemap: 'linked' });
const args = rest[0] === '--' ? rest.slice(1) : rest;
// The bench in a process of its own, with this one's node options (a --cpu-prof reaches it too).
const { status } = spawnSync(process.execPath, [...process.execArgv, outfile, ...args], { stdio: 'inherit' });
process.exit(status ?? 1);
