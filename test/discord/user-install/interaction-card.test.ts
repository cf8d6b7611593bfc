/**
 * The card of a run answered through an interaction (src/discord/user-install/interaction-card.ts),
 * with the real discord.js client against the fake Discord, in a place the bot is not in: a text
 * longer than the reply and Discord's 5 follow-ups sends its rest as a file, never a sixth follow-up.
 */
import { describe, expect, it } from 'vitest';
import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import { silentLogger } from '../../../src/agent/logger.ts';
import { followUpLimit, InteractionCard } from '../../../src/discord/user-install/interaction-card.ts';
import { onNextInteraction, useDiscordClientWorld } from '../../support/discord-client-world.ts';

const world = useDiscordClientWorld();

describe('the interaction card', () => {
  it('puts what the reply and 5 follow-ups cannot hold in a file on the last follow-up', async () => {
    const { fake, client } = await world.login();
    await client.application!.commands.set([
      new SlashCommandBuilder()
        .setName('ask')
        .setDescription('Ask')
        .setIntegrationTypes(ApplicationIntegrationType.UserInstall)
        .setContexts(InteractionContextType.Guild)
        .toJSON(),
    ]);
    const place = fake.addAbsentPlace('server');
    const lines = Array.from({ length: 600 }, (_, index) => `Line ${index} of a very long text.`);
    const finished = onNextInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('not a command');
      const card = new InteractionCard(interaction, silentLogger);
      await interaction.deferReply();
      await card.finish(lines.join('\n'));
    });
    const asked = await fake.userRunsCommand({ name: 'ask', author: 'bob', channelId: place.channelId });
    await finished;

    const followUps = asked.replies().filter((reply) => reply.kind === 'followup');
    expect(followUps).toHaveLength(followUpLimit);
    const file = followUps.at(-1)!.files[0]!;
    expect(file.name).toBe('answer.md');
    const shown = [...asked.replies().filter((reply) => reply.kind === 'edit'), ...followUps.slice(0, -1)]
      .map((reply) => reply.content)
      .join('\n');
    expect(`${shown}\n${file.content}`.split('\n').filter((line) => line.startsWith('Line'))).toEqual(lines);
  });
});
