/**
 * The packages the compiled code in dist/ loads from node_modules as it runs: what the build left
 * outside the bundle (`require("x")`, `from"x"`, `import("x")`) and what the code loads by node's
 * own `require` (`createRequire(import.meta.url)("x")`), which the bundler cannot see. Node's own
 * modules are left out. Read from the compiled text, so the install it runs on must hold each.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';

/** A package name, with the path inside it cut off: `@scope/name/x` → `@scope/name`. */
const packageName = /^((?:@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*)(?:\/.*)?$/;

const loads = [
  // Not inside quotes: ajv's code generator writes `require("ajv/…")` into code it never runs here.
  /(?<![\w$.`'])(?:__)?require\("([^"]+)"\)/g,
  /(?:^|[;}\s])(?:import|export)[^"();]*?from\s*"([^"]+)"/g,
  /\bimport\s*\(\s*"([^"]+)"\s*\)/g,
  /createRequire\(import\.meta\.url\)\("([^"]+)"\)/g,
];

export function packagesLoadedBy(distFolder: string): string[] {
  const files = readdirSync(distFolder, { recursive: true, encoding: 'utf8' }).filter((file) => /\.c?js$/.test(file));
  const names = new Set<string>();
  for (const file of files) {
    const source = readFileSync(join(distFolder, file), 'utf8');
    for (const pattern of loads)
      for (const [, specifier] of source.matchAll(pattern)) {
        const name = packageName.exec(specifier!)?.[1];
        if (name && !isBuiltin(specifier!)) names.add(name);
      }
  }
  return [...names].sort();
}
