/**
 * The command list (commands/index.ts) as Discord gets it: registered once, and again only when
 * a command changes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.ts';
import { type BotWorld, startBotWorld } from '../support/bot-harness.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld; // a test that starts no world must not close the last one again
});

describe('the command list', () => {
  it('registers the commands once, not again on an unchanged restart, and again when a description changes', async () => {
    world = await startBotWorld();
    const puts = () =>
      world.discord.requests.filter((request) => request.method === 'PUT' && request.path.endsWith('/commands')).length;
    expect(
      world.discord
        .registeredCommands()
        .map((command) => command.name)
        .sort(),
    ).toEqual([
      'Add to knowledge',
      'Agent steps',
      'Ask about this message',
      'Report answer',
      'ask',
      'forget-me',
      'help',
      'knowledge',
      'memory',
      'model',
      'reset',
      'schedule',
      'settings',
      'solved',
      'steps',
      'stop',
      'summarize',
      'tool',
      'usage',
    ]);
    expect(puts()).toBe(1);
    // Without moderator roles, Discord shows the moderator commands to those who may manage messages.
    const registered = world.discord.registeredCommands();
    expect(registered.find((command) => command.name === 'steps')?.default_member_permissions).toBe('8192');
    expect(registered.find((command) => command.name === 'help')?.default_member_permissions ?? null).toBeNull();

    await world.restart();
    expect(puts()).toBe(1);

    // The same Discord, a new description: exactly one more PUT.
    const changed = commands.map((command) =>
      command.name === 'help'
        ? {
            ...command,
            data: () => ({
              ...command.data({
                tools: [],
                toolServers: [],
                toolSubcommands: { subcommands: [], servers: [], leftOut: [] },
                moderatorRoleIds: [],
                modelListings: [],
              }),
              description: 'Changed.',
            }),
          }
        : command,
    );
    await world.restart({ commands: changed });
    expect(puts()).toBe(2);
    expect(world.discord.registeredCommands().find((command) => command.name === 'help')?.description).toBe('Changed.');
  });
});
