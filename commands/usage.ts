import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { costOf, formatCost } from '../src/model-catalog/cost.ts';
import { isServerModerator } from '../src/discord/interactions/moderation.ts';
import { guildOnly, moderatorVisibility, personalCommand, privately } from './shared.ts';
import { userInstallServerId } from '../db/conversations.ts';
import { countOf, formatCount } from '../src/text/count.ts';
import { escapeMarkdown } from '../src/text/markdown.ts';

const days = 7;

export const usage = defineCommand({
  name: 'usage',
  moderatorOnly: true,
  data: (setup) => ({
    name: 'usage',
    description: setup.userInstall
      ? "Moderators: this server's use. Through your own install: your use of me today."
      : "Moderators: this server's tokens and runs per day and model, busiest threads and people.",
    // One value for every server, also where a person's own install is used ("apply to that command
    // in all servers": https://discord.com/developers/docs/change-log#upcoming-application-command-permission-changes,
    // 2022-11-17): there too only people who may manage messages see it in the menu (no moderator
    // roles set); in group DMs and DMs everyone does (docs/user-install.md).
    ...moderatorVisibility(setup),
    ...personalCommand(setup, guildOnly),
  }),
  /**
   * Through the person's own install, where no server added the bot: their own use there today, and
   * what is left of the budget all such use shares (USER_INSTALL_DAILY_TOKENS). Nobody else's.
   */
  async userInstalled(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const dayStart = Math.floor(Date.now() / 86_400_000) * 86_400_000;
    const mine = context.store.usage.ofPerson(userInstallServerId, interaction.user.id, dayStart);
    const budget = context.discord.userInstallDailyTokens ?? 0;
    const shared = context.store.runs.tokensOnDay(userInstallServerId, dayStart);
    await privately(
      interaction,
      [
        `Your use of me through your own install today (UTC): ${countOf(mine.tokens, 'token')}, ${countOf(mine.runs, 'run')}.`,
        budget > 0
          ? `Everyone's use through their own install together: ${formatCount(shared)} of ${formatCount(budget)} tokens today.`
          : 'The operator sets no daily limit on use through people’s own installs.',
      ].join('\n'),
    );
  },
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
