/**
 * A question's buttons outlive the process that posted them when it is killed (a bot that stops
 * withdraws its questions; a killed one cannot): a press on them, reaching a process that does not
 * hold the question, takes the buttons away and tells the presser why, privately. Such a post is
 * made here by the bot's own client, as the killed process made it.
 */
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, type SendableChannels } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotWorld, startBotWorld } from '../../support/bot-harness.ts';

let world: BotWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A question as a killed process left it: its buttons, their question unknown to this one. */
async function leftoverQuestion(w: BotWorld, prefix: string, choices: string[]) {
  const channel = (await w.bot.client.channels.fetch(w.discord.channels.general)) as SendableChannels;
  const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
    choices.map((choice) =>
      new ButtonBuilder().setCustomId(`${prefix}f00d:${choice}`).setLabel(choice).setStyle(ButtonStyle.Secondary),
    ),
  );
  return channel.send({ content: '**Bob**, I want to run **test__delete** …', components: [row] });
}

describe('a press on a question posted before the bot was killed', () => {
  it.each([
    [
      'a Confirm question',
      'tool-confirm:',
      ['confirm', 'cancel'],
      /^This question is closed: it was answered, or I was restarted since/,
    ],
    [
      'a request for input',
      'tool-input:',
      ['fill', 'decline'],
      /^This request is closed: it was answered, or I was restarted since/,
    ],
  ])('%s: its buttons are taken away and the presser is told why, privately', async (_, prefix, choices, told) => {
    const w = (world = await startBotWorld());
    const posted = await leftoverQuestion(w, prefix, choices);
    const press = await w.discord.userPressesMessageButton({
      channelId: w.discord.channels.general,
      messageId: posted.id,
      customId: `${prefix}f00d:${choices[0]}`,
      author: 'bob',
    });
    expect(await press.waitForReply((reply) => reply.kind === 'followup')).toMatchObject({
      ephemeral: true,
      content: expect.stringMatching(told),
    });
    const after = w.discord.botMessages(w.discord.channels.general).find((message) => message.id === posted.id)!;
    expect(after.components).toEqual([]);
    expect(after.content).toBe('**Bob**, I want to run **test__delete** …');
  });
});
