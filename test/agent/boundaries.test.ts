import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** What a file imports: project files as paths from the root, packages by name. */
function importsOf(file: string): string[] {
  const source = readFileSync(join(root, file), 'utf8');
  const specifiers = [...source.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((match) => match[1]!);
  return specifiers.map((specifier) => (specifier.startsWith('.') ? relative(root, resolve(dirname(join(root, file)), specifier)) : specifier));
}

function filesIn(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name));
}

/** Helpers with no dependency on the project, which every part may use. */
const leafFolders = ['src/text/', 'src/streams/'];

describe('import boundaries', () => {
  it('the agent core imports only itself, src/errors.ts and the leaf helpers; only its OpenAI adapter imports openai', () => {
    const stray = filesIn('src/agent').flatMap((file) =>
      importsOf(file)
        .filter((target) => {
          if (target.startsWith('node:') || target === 'zod') return false;
          if (target.startsWith('openai')) return file !== 'src/agent/openai-model-client.ts';
          return !(target.startsWith('src/agent/') || target === 'src/errors.ts' || leafFolders.some((folder) => target.startsWith(folder)));
        })
        .map((target) => `${file} imports ${target}`),
    );
    expect(stray).toEqual([]);
  });

  it('the leaf helpers import nothing of the project but each other, and no package', () => {
    const stray = leafFolders.flatMap(filesIn).flatMap((file) =>
      importsOf(file)
        .filter((target) => !target.startsWith('node:') && !leafFolders.some((folder) => target.startsWith(folder)))
        .map((target) => `${file} imports ${target}`),
    );
    expect(stray).toEqual([]);
  });
});
