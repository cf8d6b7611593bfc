import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { costOf, formatCost } from '../src/model-catalog/cost.ts';
import { isServerModerator } from '../src/discord/interactions/moderation.ts';
import { guildOnly, moderatorVisibility, privately } from './shared.ts';
import { countOf, formatCount } from '../src/text/count.ts';
import { escapeMarkdown } from '../src/text/markdown.ts';

const days = 7;

export const usage = defineCommand({
  name: 'usage',
  moderatorOnly: true,
  data: (setup) => ({
    name: 'usage',
    description: "Moderators: this server's tokens and runs per day and model, busiest threads and people.",
    ...moderatorVisibility(setup),
    ...guildOnly,
  }),
  async execute(interaction, context) {
    // Server-wide figures (thread titles of every channel) for server-wide moderators only.
    if (!isServerModerator(interaction.member, context.moderatorRoleIds))
      return privately(interaction, '/usage is for moderators of the whole server.');
    const since =
      Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) -
      (days - 1) * 86_400_000;
    const { usage: queries } = context.store;
    const perDay = queries.perDay(interaction.guildId, since);
    if (perDay.length === 0) return privately(interaction, `No runs in this server in the last ${days} days.`);
    const line = (name: string, runs: number, tokens: number) =>
      `- ${name}: ${countOf(tokens, 'token')}, ${countOf(runs, 'run')}`;
    const budget = context.discord.dailyTokenBudget;
    await privately(
      interaction,
      [
        `**Last ${days} days** (UTC)${budget > 0 ? `, daily budget ${formatCount(budget)} tokens` : ''}`,
        ...perDay.map((day) => line(day.day, day.runs, day.tokens)),
        '**Per model**',
        ...queries.perModel(interaction.guildId, since).map((model) => {
          const price = context.models.entry(model.name)?.price ?? null;
          const cost = costOf(price, model.promptTokens, model.completionTokens, model.cachedTokens);
          // What the server reused of the prompts it was sent: read once, not again (where it said).
          const cached =
            model.cachedTokens > 0
              ? `, ${formatCount(model.cachedTokens)} of ${formatCount(model.promptTokens)} prompt tokens from its cache`
              : '';
          return `${line(escapeMarkdown(model.name), model.runs, model.tokens)}${cached}${cost === null ? '' : `, about ${formatCost(cost)}`}`;
        }),
        '**Busiest threads**',
        ...queries
          .busiestThreads(interaction.guildId, since)
          .map((thread) => line(escapeMarkdown(thread.name), thread.runs, thread.tokens)),
        '**Busiest people**',
        ...queries
          .busiestUsers(interaction.guildId, since)
          .map((user) => line(escapeMarkdown(user.name), user.runs, user.tokens)),
      ].join('\n'),
    );
  },
});
