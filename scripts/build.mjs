/**
 * `npm run build` (and `prepare`, so `npm install` / `npm ci` builds it): the bot and its operator
 * commands compiled into `dist/`, one ES module per entry with the code they share split into
 * chunks, for `npm start` and the rest to run as plain JavaScript: no TypeScript compiled at start,
 * and no tsx or esbuild in the production install.
 *
 * The pure-JavaScript packages are bundled in (tree-shaken, so the install carries only what runs:
 * of gpt-tokenizer's encodings only the two the token counter loads). Left outside, installed as
 * production dependencies: better-sqlite3 (a native addon) and pino (it loads its transports from
 * files by path: https://github.com/pinojs/pino/blob/main/docs/bundling.md). discord.js's optional
 * native speed-ups (zlib-sync, bufferutil, utf-8-validate) stay optional and outside.
 *
 * Written in plain JavaScript: it runs at install time, before anything could compile it.
 */
import { rmSync } from 'node:fs';

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
];

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  // A production install (`npm ci --omit=dev`) has no esbuild: dist/ comes from the build stage.
  console.log('build: esbuild is not installed (a production install); dist/ is left as it is');
  process.exit(0);
}

rmSync('dist', { recursive: true, force: true });
const result = await esbuild.build({
  entryPoints: entries,
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  minifySyntax: true,
  minifyWhitespace: true,
  sourcemap: 'linked',
  sourcesContent: false, // the maps point into src/, which the repository holds
  external: ['better-sqlite3', 'pino', 'zlib-sync', 'bufferutil', 'utf-8-validate', '@discordjs/opus'],
  // CommonJS packages bundled into ES modules still call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  metafile: true,
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(`build: ${entries.length} entries into dist/ (${(bytes / 2 ** 20).toFixed(1)} MiB with source maps)`);
