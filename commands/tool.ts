import { defineCommand } from '../src/discord/command-context.ts';
import { runDirectToolCall } from '../src/discord/direct-tool-call.ts';
import { renderToolTurn } from '../src/discord/render.ts';
import { argumentsFrom } from '../src/discord/tool-options.ts';
import { conversationHere, guildOnly, isModeratorIn, privately } from './shared.ts';

export const tool = defineCommand({
  name: 'tool',
  moderatorOnly: false,
  data: (setup) => ({
    name: 'tool',
    description: 'Run one of my tools yourself, without the model.',
    options: setup.toolSubcommands.subcommands.map((subcommand) => subcommand.option),
    ...guildOnly,
  }),
  async execute(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const name = interaction.options.getSubcommand();
    const subcommand = context.toolSubcommands.subcommands.find((candidate) => candidate.option.name === name);
    if (!subcommand) return privately(interaction, `There is no tool called "${name}" any more.`);
    const moderator = isModeratorIn(interaction, context);
    if (subcommand.tool.moderatorOnly && !moderator) return privately(interaction, `Only moderators can run **${subcommand.tool.name}**.`);
    const values = new Map((interaction.options.data[0]?.options ?? []).flatMap((option) => (option.value === undefined ? [] : [[option.name, option.value] as const])));
    const parsed = argumentsFrom(subcommand, values);
    const validated = parsed.ok ? subcommand.tool.validate(parsed.args) : { ok: false as const, issues: parsed.issues };
    if (!validated.ok) return privately(interaction, `That input does not work for **${subcommand.tool.name}**:\n- ${validated.issues.join('\n- ')}`);

    await interaction.deferReply();
    const thread = conversationHere(interaction, context);
    const conversation =
      thread ??
      context.store.conversations.ensure({
        key: `discord:tool:${interaction.channelId}`,
        title: `/tool in #${interaction.channel?.name ?? interaction.channelId}`,
        guildId: interaction.guildId,
        channelId: interaction.channelId,
        threadId: null,
        startedById: interaction.user.id,
        startedByName: interaction.member.displayName,
      });
    const outcome = await runDirectToolCall(context.store, context.counter, {
      conversation,
      remember: thread !== undefined,
      tool: subcommand.tool,
      args: validated.value,
      context: {
        conversationId: conversation.key,
        guildId: interaction.guildId,
        channelId: interaction.channelId,
        requester: { id: interaction.user.id, displayName: interaction.member.displayName, isModerator: moderator },
        logger: context.logger,
      },
      timeoutMs: context.agent.toolTimeoutMs,
      instanceId: context.instanceId,
      requester: interaction.user.id,
    });
    const shown = renderToolTurn([{ name: subcommand.tool.name, arguments: JSON.stringify(validated.value), ok: outcome.ok, text: outcome.text }], 'all');
    const posted = await interaction.editReply({ content: shown, allowedMentions: { parse: [] } });
    context.store.runs.addPostedMessage(outcome.runId, posted.id);
  },
});
