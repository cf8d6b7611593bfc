/**
 * The unit lane's setup file: a test there that starts a process fails at once, naming the rule,
 * instead of running against a dist/ nobody built. A test that needs a process belongs in the bot
 * lane: name it `*.bot.test.ts` (vitest.config.ts, docs/development.md).
 *
 * The functions are replaced on the module object and pushed to ES module imports with
 * `syncBuiltinESMExports` (https://nodejs.org/api/module.html#modulesyncbuiltinesmexports).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const starters = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

for (const name of starters) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    writable: true,
    value: () => {
      throw new Error(`child_process.${name} in the unit lane: a test that starts a process is named *.bot.test.ts`);
    },
  });
}
syncBuiltinESMExports();
