import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Two lanes (docs/development.md, "Tests"):
 * - `unit`: every `*.test.ts` but the bot lane's. No child process, no dist/: `npm run test:unit`.
 * - `bot`: `*.bot.test.ts`, the tests that start a process (the compiled bot or one of its
 *   commands, an MCP server, a shard) or read dist/; dist/ is built once before them.
 * `npm test` runs both.
 */
const botTests = 'test/**/*.bot.test.ts';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    // Tests talk to servers on 127.0.0.1 only; a stray request elsewhere would hang, not pass.
    restoreMocks: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [botTests],
          setupFiles: ['test/support/no-child-process.ts'],
          // One module graph per worker, not per file: loading discord.js, openai and zod again for
          // each of ~140 files took 84 s of a 277 s run (8 s with one graph). Tests keep no state
          // in modules; if one seems to, `npx vitest run --project unit --isolate` tells.
          isolate: false,
          // Unit tests mostly wait on the fakes' loopback sockets: more workers than cores.
          maxWorkers: Math.max(availableParallelism(), 4),
          // A project with its own maxWorkers runs as a group of its own (vitest's rule): the unit
          // lane first, then the bot lane.
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'bot',
          include: [botTests],
          globalSetup: ['test/support/build-once.ts'],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
