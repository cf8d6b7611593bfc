/** The types of shared-packages.mjs, for the tests that import it. */
import type { Plugin } from 'esbuild';

export function sharedPackages(pattern: RegExp): { plugin: Plugin; specifiers: Set<string> };
export function buildPackagesScript(
  esbuild: typeof import('esbuild'),
  specifiers: Iterable<string>,
  outfile: string,
): Promise<void>;
