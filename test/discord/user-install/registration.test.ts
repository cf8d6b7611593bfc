/**
 * Where the bot registers its commands with USER_INSTALL=on, at its start (src/discord/bot.ts): for
 * every server, the personal ones installable to accounts; in DISCORD_GUILD_ID's server, which
 * Discord offers to no account, it says so.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld } from '../../support/bot-harness.ts';
import { recordingLogger } from '../../support/recording-logger.ts';
import { seedIds } from '../../support/fake-discord/world.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld;
});

const warning =
  'USER_INSTALL is on, but DISCORD_GUILD_ID registers the commands in one server: nobody can install them to their account';

describe('registering the commands with USER_INSTALL=on', () => {
  it('registers /ask for user installs in every context, and no warning, when the commands are global', async () => {
    const { logger, lines } = recordingLogger();
    world = await startBotWorld({ userInstall: true }, {}, {}, { logger });
    const ask = await world.discord.waitFor(() => world.discord.registeredCommands().find((c) => c.name === 'ask'));
    expect([ask.integration_types, ask.contexts]).toEqual([
      [0, 1],
      [0, 1, 2],
    ]);
    expect(lines.filter((line) => line.msg === warning)).toEqual([]);
  });

  it('warns that nobody can install commands registered in one server (DISCORD_GUILD_ID)', async () => {
    const { logger, lines } = recordingLogger();
    world = await startBotWorld({ userInstall: true, commandGuildId: seedIds.guild }, {}, {}, { logger });
    expect(lines.filter((line) => line.msg === warning).map((line) => line.fields)).toEqual([
      { guildId: seedIds.guild },
    ]);
  });
});
