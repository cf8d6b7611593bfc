/**
 * The fixture of a test that runs the bot as a process (bot-process.ts): before each test a fake
 * Discord, a scripted model and a fresh folder for the database; after it, every bot started
 * through `start` killed with SIGKILL (the whole process group for `npmStart`) and waited for, then
 * the fakes closed (the client before its fake, or it reconnects for ever).
 *
 *   const world = useBotProcessWorld('crash-');
 *   const bot = await world.start({ TOOL_POSTS: 'all' });
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type BotProcess, type BotProcessOptions, startBotProcess } from './bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from './fake-discord.ts';
import { type ScriptedModel, startScriptedModel } from './fake-model.ts';

export interface BotProcessWorld {
  readonly discord: FakeDiscord;
  readonly model: ScriptedModel;
  /** A folder of this test's own, the database's. */
  readonly folder: string;
  /** `bot.sqlite` in `folder`. */
  readonly databasePath: string;
  /**
   * `npm start`'s code against this world's fakes and database, resolved once ready; `model` and
   * `databasePath` put another model server or database in their place.
   */
  start(env?: Record<string, string>, options?: BotProcessStart): Promise<BotProcess>;
}

export interface BotProcessStart extends BotProcessOptions {
  model?: Pick<ScriptedModel, 'baseURL'>;
  databasePath?: string;
}

/** Registers the set-up (beforeEach) and teardown (afterEach) in the file or describe block it is called in. */
export function useBotProcessWorld(folderPrefix: string): BotProcessWorld {
  let current: { discord: FakeDiscord; model: ScriptedModel; folder: string } | undefined;
  const bots: { bot: BotProcess; group: boolean }[] = [];
  const now = () => {
    if (!current) throw new Error('useBotProcessWorld: read inside a test (its fakes start before each)');
    return current;
  };
  beforeEach(async () => {
    current = {
      discord: await startFakeDiscord(),
      model: await startScriptedModel(),
      folder: mkdtempSync(join(tmpdir(), folderPrefix)),
    };
  });
  afterEach(async () => {
    for (const { bot, group } of bots.splice(0)) {
      if (bot.child.exitCode === null && bot.child.signalCode === null) {
        if (group) process.kill(-bot.child.pid!, 'SIGKILL');
        else bot.child.kill('SIGKILL');
      }
      await bot.exited;
    }
    await current?.discord.close();
    await current?.model.close();
    current = undefined;
  });
  return {
    get discord() {
      return now().discord;
    },
    get model() {
      return now().model;
    },
    get folder() {
      return now().folder;
    },
    get databasePath() {
      return join(now().folder, 'bot.sqlite');
    },
    async start(env = {}, { model, databasePath, ...options } = {}) {
      const world = now();
      const bot = await startBotProcess(
        world.discord,
        model ?? world.model,
        databasePath ?? join(world.folder, 'bot.sqlite'),
        env,
        options,
      );
      bots.push({ bot, group: options.npmStart ?? false });
      return bot;
    },
  };
}
