/**
 * Where the slash commands are registered: in the server DISCORD_GUILD_ID, or for every server.
 * A server shows its own commands and the global ones, so a bot that moves from one scope to the
 * other removes its commands from the one it left; `npm run deploy-commands` and `npm start` both.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commands } from '../../../commands/index.ts';
import { type BotProcess, startBotProcess } from '../../support/bot-process.ts';
import { type FakeDiscord, startFakeDiscord } from '../../support/fake-discord.ts';
import { runScript } from '../../support/run-process.ts';
import { type ScriptedModel, startScriptedModel } from '../../support/fake-model.ts';

let discord: FakeDiscord;
beforeEach(async () => {
  discord = await startFakeDiscord();
});
afterEach(async () => {
  await discord.close();
});

const names = (guildId?: string) =>
  discord
    .registeredCommands(guildId ? { guildId } : {})
    .map((command) => command.name)
    .sort();
/** The bot's commands (commands/index.ts), as the fake lists them. */
const ours = commands.map((command) => command.name).sort();

describe('npm run deploy-commands', () => {
  // Its own folder, without a .env: neither a model setting nor a database comes from anywhere.
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'deploy-'));
  });
  const deploy = (env: Record<string, string> = {}, args: string[] = []) =>
    runScript('src/deploy-commands.ts', {
      cwd,
      args,
      env: { DISCORD_API_URL: discord.apiUrl, DISCORD_TOKEN: discord.token, ...env },
    });
  const lastLine = (stdout: string) => stdout.trim().split('\n').at(-1);

  it('registers in DISCORD_GUILD_ID and says so, does nothing when up to date, with no model setting and no database', async () => {
    const inServer = { DISCORD_GUILD_ID: discord.guildId };
    const first = await deploy(inServer);
    const second = await deploy(inServer);

    expect([first.code, lastLine(first.stdout)]).toEqual([
      0,
      `Commands registered in the server ${discord.guildId} (DISCORD_GUILD_ID).`,
    ]);
    expect([second.code, lastLine(second.stdout)]).toEqual([
      0,
      `Commands already up to date in the server ${discord.guildId} (DISCORD_GUILD_ID): nothing to do.`,
    ]);
    expect(names(discord.guildId)).toEqual(ours);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('moving between a server and every server removes the commands from the scope left, and says so', async () => {
    await deploy();
    expect(names()).toEqual(ours);

    const toServer = await deploy({ DISCORD_GUILD_ID: discord.guildId });
    expect(toServer.stdout).toContain(`Removed ${ours.length} of its commands for every server (global) (`);
    expect([names(), names(discord.guildId)]).toEqual([[], ours]);

    const toEveryServer = await deploy();
    expect(toEveryServer.stdout).toContain(`Removed ${ours.length} of its commands in the server ${discord.guildId} (`);
    expect(lastLine(toEveryServer.stdout)).toBe('Commands registered for every server (global).');
    expect([names(), names(discord.guildId)]).toEqual([ours, []]);
  });

  it('USER_INSTALL=on registers the personal commands for user installs in every context, the others for servers; off again, for servers only', async () => {
    const installs = () =>
      Object.fromEntries(
        discord.registeredCommands().map((command) => [command.name, [command.integration_types, command.contexts]]),
      );
    const on = await deploy({ USER_INSTALL: 'on' });
    expect(on.code).toBe(0);
    expect(lastLine(on.stdout)).toContain('USER_INSTALL is on');
    // integration_types: 0 GUILD_INSTALL, 1 USER_INSTALL; contexts: 0 GUILD, 1 BOT_DM, 2 PRIVATE_CHANNEL.
    const everywhere = [
      [0, 1],
      [0, 1, 2],
    ];
    expect(installs()).toMatchObject({
      ask: everywhere,
      'Ask about this message': everywhere,
      'forget-me': everywhere,
      model: everywhere,
      summarize: [[0], [0]],
      settings: [[0], [0]],
    });
    const userInstallable = Object.entries(installs()).filter(([, [types]]) => (types as number[]).includes(1));
    expect(userInstallable.map(([name]) => name).sort()).toEqual([
      'Ask about this message',
      'ask',
      'forget-me',
      'model',
      'usage',
    ]);

    const off = await deploy();
    expect(lastLine(off.stdout)).toBe('Commands registered for every server (global).');
    expect(Object.values(installs()).filter(([types]) => (types as number[]).includes(1))).toEqual([]);
  });

  it('--help prints what it does and registers nothing', async () => {
    const help = await deploy({}, ['--help']);

    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: npm run deploy-commands');
    expect(discord.requests).toEqual([]);
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });
});

describe('npm start', () => {
  let model: ScriptedModel;
  let bot: BotProcess | undefined;
  let databasePath: string;
  beforeEach(async () => {
    model = await startScriptedModel();
    databasePath = join(mkdtempSync(join(tmpdir(), 'scopes-')), 'bot.sqlite');
  });
  afterEach(async () => {
    await stop();
    await model.close();
  });
  async function stop() {
    if (!bot) return;
    bot.child.kill('SIGTERM');
    await bot.exited;
    bot = undefined;
  }
  async function start(env: Record<string, string> = {}) {
    await stop();
    bot = await startBotProcess(discord, model, databasePath, env);
    return bot;
  }

  it(
    'moves its commands when DISCORD_GUILD_ID is set, and back when it is unset, logging what it removed',
    { timeout: 60_000 },
    async () => {
      await start();
      expect([names(), names(discord.guildId)]).toEqual([ours, []]);

      const inServer = await start({ DISCORD_GUILD_ID: discord.guildId });
      expect([names(), names(discord.guildId)]).toEqual([[], ours]);
      expect(
        await inServer.waitForLog(
          `slash commands removed for every server (global): they are registered in the server ${discord.guildId}`,
        ),
      ).toMatchObject({ scope: 'global', commands: expect.arrayContaining(['ask']) });

      const everywhere = await start();
      expect([names(), names(discord.guildId)]).toEqual([ours, []]);
      expect(
        await everywhere.waitForLog(
          `slash commands removed in the server ${discord.guildId}: they are registered for every server (global)`,
        ),
      ).toMatchObject({ scope: discord.guildId });
    },
  );
});
