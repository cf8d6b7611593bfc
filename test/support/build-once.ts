/**
 * Vitest's global setup: the bot is compiled into dist/ once before the tests, so that the tests
 * that start its commands as processes run what `npm start` runs (the compiled JavaScript), never
 * a dist/ left over from older sources.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
