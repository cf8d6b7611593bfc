/**
 * How the project's TypeScript is compiled for running: the one set of esbuild options that
 * `npm run build` (dist/) and the benches that measure compiled code (bench/compiled.mjs) share,
 * so that a bench measures the code as it ships. Both take the packages every start loads
 * (`sharedPackagePattern`) from a packages script (scripts/shared-packages.mjs). Plain JavaScript:
 * it runs at install time.
 */
/**
 * discord.js's optional native speed-ups: it loads each in a try and goes on without it, so they
 * stay outside the bundle and out of the install unless the operator adds them.
 */
export const optionalPackages = ['zlib-sync', 'bufferutil', 'utf-8-validate', '@discordjs/opus'];

/**
 * Packages the bundle names in a fallback that Node 20 never takes: pdf.js (bundled through unpdf,
 * for /knowledge's PDFs) requires node-readable-to-web-readable-stream only where
 * `stream.Readable.toWeb` is missing (Node < 17: its `getReadableStream`, and only for file: URLs),
 * and package.json's engines ask for Node 20.19 or later. They stay out of the install.
 */
export const untakenFallbacks = ['node-readable-to-web-readable-stream'];

/** The packages every start loads, taken from the packages script (dist/packages.cjs). */
export const sharedPackagePattern = /^(discord\.js|openai|pino|zod)(\/|$)/;

export const compileOptions = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  minifySyntax: true,
  minifyWhitespace: true,
  // Native addons (sqlite-vec: a loadable SQLite extension it finds by its own path, in the
  // platform's package beside it), and discord.js's optional speed-ups. pino is bundled: it would load its
  // transports from files by path (https://github.com/pinojs/pino/blob/main/docs/bundling.md), and
  // the bot has none (it writes its lines to stdout itself: src/app/logging.ts).
  external: ['better-sqlite3', 'sqlite-vec', ...optionalPackages],
  // CommonJS packages bundled into ES modules still call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  logLevel: 'warning',
};
