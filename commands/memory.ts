/**
 * `/memory`: a member's own remembered facts in this place (a server, or their DMs with the bot):
 * `show` lists them, `forget` removes one (picked from their own, as they type) or `all`. Every
 * reply is private. There is no way to name another member: a moderator sees only their own facts.
 * Facts are kept by the `remember` tool where member memory is on (tools/remember.ts).
 */
import { ApplicationCommandOptionType, type ChatInputCommandInteraction } from 'discord.js';
import { directMessagesServerId } from '../db/conversations.ts';
import type { MemberFactRow } from '../db/member-facts.ts';
import { defineCommand, type CommandContext } from '../src/discord/interactions/command-context.ts';
import { settingsOfConversation } from '../src/place-settings/place-choice.ts';
import { splitMessage } from '../src/posts/split-message.ts';
import { escapeMarkdown } from '../src/text/markdown.ts';
import { truncateLine } from '../src/text/truncate.ts';
import { memberFactLimits } from '../tools/remember.ts';
import { guildAndDirectMessages, privately } from './shared.ts';

const everything = 'all';
/** A choice's value names the fact by its id, apart from a number typed (its place in /memory show). */
const idPrefix = 'id:';

export const memory = defineCommand({
  name: 'memory',
  moderatorOnly: false,
  data: (setup) => ({
    name: 'memory',
    description: 'What I remember of you here, at your request: see it, or remove some or all of it.',
    ...guildAndDirectMessages(setup),
    options: [
      { type: ApplicationCommandOptionType.Subcommand, name: 'show', description: 'The facts I remember of you here.' },
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: 'forget',
        description: 'Remove one fact I remember of you here, or all of them.',
        options: [
          {
            type: ApplicationCommandOptionType.String,
            name: 'fact',
            description: 'Pick one, or "all"; or type its number from /memory show.',
            required: true,
            autocomplete: true,
          },
        ],
      },
    ],
  }),
  execute: async (interaction, context) => {
    if (interaction.isChatInputCommand()) await answer(interaction, context, interaction.guildId);
  },
  inDirectMessage: (interaction, context) => answer(interaction, context, null),
  async autocomplete(interaction, context) {
    const typed = interaction.options.getFocused().toLowerCase();
    const facts = context.store.memberFacts.of(interaction.guildId, interaction.user.id);
    const choices = [
      ...(facts.length > 0 ? [{ name: 'all of them', value: everything }] : []),
      ...facts.map((row, index) => ({
        name: truncateLine(`${index + 1}. ${row.fact}`, 100),
        value: `${idPrefix}${row.id}`,
      })),
    ];
    await interaction.respond(choices.filter((choice) => choice.name.toLowerCase().includes(typed)).slice(0, 25));
  },
});

/** `show` or `forget`, for the person who ran it, in this server (null: their DMs). */
async function answer(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  guildId: string | null,
): Promise<void> {
  const place = guildId ?? directMessagesServerId;
  const user = interaction.user.id;
  const facts = context.store.memberFacts.of(place, user);
  const where = guildId ? 'in this server' : 'in our direct messages';
  if (interaction.options.getSubcommand() === 'show') {
    const text = describeFacts(facts, where, memoryOn(context, guildId));
    for (const piece of splitMessage(text)) await privately(interaction, piece);
    return;
  }
  const chosen = interaction.options.getString('fact', true).trim();
  if (chosen.toLowerCase() === everything) {
    const removed = context.store.memberFacts.removeAll(place, user);
    return privately(
      interaction,
      removed > 0
        ? `Forgotten: ${removed === 1 ? 'the one fact' : `all ${removed} facts`} I remembered of you ${where}.`
        : `I remember nothing of you ${where}.`,
    );
  }
  const fact = pickFact(facts, chosen);
  if (!fact || !context.store.memberFacts.remove(fact.id, place, user))
    return privately(interaction, `I remember no such fact of you ${where}: see yours with /memory show.`);
  await privately(interaction, `Forgotten: "${escapeMarkdown(truncateLine(fact.fact, 200))}".`);
}

/** The fact the option names: its id (as autocomplete gives it), its number in /memory show, or its exact words. */
function pickFact(facts: readonly MemberFactRow[], chosen: string): MemberFactRow | undefined {
  if (chosen.startsWith(idPrefix)) return facts.find((row) => `${idPrefix}${row.id}` === chosen);
  if (/^\d+$/.test(chosen)) return facts[Number(chosen) - 1];
  return facts.find((row) => row.fact.toLowerCase() === chosen.toLowerCase());
}

/** Whether member memory is on where the command was used. */
function memoryOn(context: CommandContext, guildId: string | null): boolean {
  if (guildId === null) return context.discord.memberMemoryInDms === true;
  return (
    settingsOfConversation(context.store, context.models, { guild_id: guildId, channel_id: null, thread_id: null })
      ?.memberMemory.value === true
  );
}

function describeFacts(facts: readonly MemberFactRow[], where: string, on: boolean): string {
  const state = on
    ? `Member memory is on ${where}: ask me to remember something about you, and I use it in your own conversations only.`
    : `Member memory is off ${where}: I remember nothing new and use none of this.`;
  if (facts.length === 0) return `I remember nothing of you ${where}. ${state}`;
  return [
    `What I remember of you ${where} (${facts.length} of ${memberFactLimits.count}; only you see this):`,
    ...facts.map((row, index) => `${index + 1}. ${escapeMarkdown(row.fact)}`),
    state,
    'Remove one or all with /memory forget; /forget-me removes them too.',
  ].join('\n');
}
