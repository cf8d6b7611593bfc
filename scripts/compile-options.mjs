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

/** The packages every start loads, taken from the packages script (dist/packages.cjs). */
export const sharedPackagePattern = /^(discord\.js|openai|pino|zod)(\/|$)/;

export const compileOptions = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  minifySyntax: true,
  minifyWhitespace: true,
  // Native addons, and discord.js's optional speed-ups. pino is bundled: it would load its
  // transports from files by path (https://github.com/pinojs/pino/blob/main/docs/bundling.md), and
  // the bot has none (it writes its lines to stdout itself: src/app/logging.ts).
  external: ['better-sqlite3', ...optionalPackages],
  // CommonJS packages bundled into ES modules still call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  plugins: [importedOnce(['discord.js'])],
  logLevel: 'warning',
};

/**
 * An esbuild plugin: each of these CommonJS packages is imported into the ES modules once. Left
 * alone, esbuild gives every module that imports one its own copy of the package's exports
 * (`__toESM`): discord.js's 535 names copied into 40 modules took 30 ms of every start. Here
 * every import goes through one small module that re-exports the package.
 */
export function importedOnce(packages) {
  const namespace = 'imported-once';
  const names = new Set(packages);
  return {
    name: namespace,
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) =>
        names.has(args.path) && args.namespace !== namespace ? { path: args.path, namespace } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace }, (args) => ({
        contents: `export * from ${JSON.stringify(args.path)};`,
        resolveDir: process.cwd(),
      }));
    },
  };
}
