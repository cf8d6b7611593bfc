import type { ChatInputCommandInteraction } from 'discord.js';
import type { RuntimeTool, ToolServer } from '../src/agent/tool.ts';
import type { CommandContext } from '../src/discord/interactions/command-context.ts';
import { toolCallsConversationKey } from '../src/conversation/conversation-keys.ts';
import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { runDirectToolCall } from '../src/conversation/direct-tool-call.ts';
import { renderToolTurn } from '../src/posts/render.ts';
import { argumentsFrom } from '../src/discord/interactions/tool-options.ts';
import { isModerator } from '../src/discord/interactions/moderation.ts';
import { toolAllowedBy } from '../src/place-settings/place-choice.ts';
import { settingsHere } from '../src/discord/interactions/settings-place.ts';
import { discordMessageLimit } from '../src/posts/split-message.ts';
import { imageFiles, imagesNotPosted, refusedFiles, tooManyFiles } from '../src/discord/outbound/image-files.ts';
import { truncate, truncateLine } from '../src/text/truncate.ts';
import { conversationHere, guildOnly, isModeratorIn, privately, requesterIn } from './shared.ts';

/** Discord shows at most 25 suggestions, each named in at most 100 characters. */
const maxSuggestions = 25;
const maxSuggestionName = 100;

export const tool = defineCommand({
  name: 'tool',
  moderatorOnly: false,
  data: (setup) => ({
    name: 'tool',
    description: 'Run one of my tools yourself, without the model.',
    options: [...setup.toolSubcommands.subcommands, ...setup.toolSubcommands.servers].map(
      (subcommand) => subcommand.option,
    ),
    ...guildOnly,
  }),
  async execute(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const name = interaction.options.getSubcommand();
    const moderator = isModeratorIn(interaction, context);
    const server = context.toolSubcommands.servers.find((candidate) => candidate.option.name === name)?.server;
    if (server) return runServerTool(interaction, context, server, moderator);

    const subcommand = context.toolSubcommands.subcommands.find((candidate) => candidate.option.name === name);
    if (!subcommand) return privately(interaction, `There is no tool called "${name}" any more.`);
    if (subcommand.tool.moderatorOnly && !moderator) {
      context.moderatorLog.record(interaction.guildId, {
        kind: 'tool-refused',
        tool: subcommand.tool.name,
        channelId: interaction.channelId,
        runId: null,
        reason: `${interaction.member.displayName} asked for it with /tool; it is for moderators only`,
      });
      return privately(interaction, `Only moderators can run **${subcommand.tool.name}**.`);
    }
    const values = new Map(
      (interaction.options.data[0]?.options ?? []).flatMap((option) =>
        option.value === undefined ? [] : [[option.name, option.value] as const],
      ),
    );
    const parsed = argumentsFrom(subcommand, values);
    const validated = parsed.ok ? subcommand.tool.validate(parsed.args) : { ok: false as const, issues: parsed.issues };
    if (!validated.ok)
      return privately(
        interaction,
        `That input does not work for **${subcommand.tool.name}**:\n- ${validated.issues.join('\n- ')}`,
      );
    await runAndPost(interaction, context, subcommand.tool, validated.value);
  },
  async autocomplete(interaction, context) {
    const server = context.toolSubcommands.servers.find(
      (candidate) => candidate.option.name === interaction.options.getSubcommand(),
    )?.server;
    if (
      !server ||
      (server.moderatorOnly && !isModerator(interaction.member, interaction.channel, context.moderatorRoleIds))
    )
      return interaction.respond([]);
    const status = server.status();
    if (status.state !== 'up') {
      const why = status.state === 'starting' ? 'it is starting' : 'it is down, restarting';
      return interaction.respond([
        {
          name: truncate(`The ${server.name} server is unavailable right now (${why})`, maxSuggestionName),
          value: 'unavailable',
        },
      ]);
    }
    const typed = interaction.options.getFocused().toLowerCase();
    const choices = server
      .tools()
      .map((candidate) => ({ tool: candidate, shortName: shortName(server, candidate) }))
      .filter(({ shortName: named }) => named.toLowerCase().includes(typed))
      .slice(0, maxSuggestions)
      .map(({ tool: candidate, shortName: named }) => ({
        name: truncateLine(`${named}: ${candidate.description}`, maxSuggestionName),
        value: named,
      }));
    await interaction.respond(choices);
  },
});

/** `/tool <server> tool:<name> arguments:<JSON>`: one of an MCP server's tools, as it lists them now. */
async function runServerTool(
  interaction: ChatInputCommandInteraction<'cached'>,
  context: CommandContext,
  server: ToolServer,
  moderator: boolean,
): Promise<void> {
  if (server.moderatorOnly && !moderator)
    return privately(interaction, `Only moderators can run the tools of **${server.name}**.`);
  const status = server.status();
  if (status.state !== 'up') {
    const why = status.state === 'starting' ? 'it is still starting' : status.reason;
    return privately(
      interaction,
      `The **${server.name}** MCP server is unavailable right now (${why}). Try again in a little while.`,
    );
  }
  const wanted = interaction.options.getString('tool', true);
  const found = server
    .tools()
    .find((candidate) => shortName(server, candidate) === wanted || candidate.name === wanted);
  if (!found) {
    const names = server.tools().map((candidate) => `\`${shortName(server, candidate)}\``);
    return privately(
      interaction,
      `**${server.name}** has no tool called "${wanted}". It has: ${names.join(', ') || 'none right now'}.`,
    );
  }
  const text = interaction.options.getString('arguments') ?? '{}';
  let args: unknown;
  try {
    args = JSON.parse(text);
  } catch (error) {
    return privately(
      interaction,
      `The arguments must be a JSON object, such as {"name": "value"}: ${(error as Error).message}`,
    );
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return privately(interaction, 'The arguments must be a JSON object, such as {"name": "value"}.');
  const validated = found.validate(args);
  if (!validated.ok)
    return privately(
      interaction,
      `That input does not work for **${found.name}**:\n- ${validated.issues.join('\n- ')}`,
    );
  await runAndPost(interaction, context, found, validated.value);
}

/** A server's tool by the name the server gives it (the agent's name without `<server>__`). */
function shortName(server: ToolServer, candidate: RuntimeTool): string {
  const prefix = `${server.name}__`;
  return candidate.name.startsWith(prefix) ? candidate.name.slice(prefix.length) : candidate.name;
}

/** Runs the tool for the person, records it like the agent's calls, and posts the result here. */
async function runAndPost(
  interaction: ChatInputCommandInteraction<'cached'>,
  context: CommandContext,
  chosen: RuntimeTool,
  args: unknown,
): Promise<void> {
  // Commands are registered for every place at once: a tool switched off here is refused on use.
  const settings = settingsHere(interaction, context);
  if (!toolAllowedBy(settings, context.toolServers)(chosen)) {
    context.moderatorLog.record(interaction.guildId, {
      kind: 'tool-refused',
      tool: chosen.name,
      channelId: interaction.channelId,
      runId: null,
      reason: `${interaction.member.displayName} asked for it with /tool; it is switched off here`,
    });
    return privately(interaction, `The moderators have switched **${chosen.name}** off here.`);
  }
  await interaction.deferReply();
  // The call holds the person's words, as a run holds a message's: it starts after a /forget-me
  // going on here, and their own /forget-me stops it and waits until its result is posted.
  await context.forgets.clearOf(interaction.guildId);
  const active = context.activeRuns.beginDirectCall({
    guildId: interaction.guildId,
    requesterIds: [interaction.user.id],
  });
  try {
    const outcome = await callTool(interaction, context, chosen, args, active.stopped);
    active.end(); // Posting its result now: a forget waits for it, no longer stops it.
    await postOutcome(interaction, context, chosen, args, outcome);
  } finally {
    active.end();
    active.settled();
  }
}

/** The call, in the conversation here (a thread's memory holds it) or in the channel's record of /tool calls. */
async function callTool(
  interaction: ChatInputCommandInteraction<'cached'>,
  context: CommandContext,
  chosen: RuntimeTool,
  args: unknown,
  stopped: AbortSignal,
) {
  const thread = conversationHere(interaction, context);
  const conversation =
    thread ??
    context.store.conversations.ensure({
      key: toolCallsConversationKey(interaction.channelId),
      title: `/tool in #${interaction.channel?.name ?? interaction.channelId}`,
      guildId: interaction.guildId,
      channelId: interaction.channelId,
      threadId: null,
      startedById: interaction.user.id,
      startedByName: interaction.member.displayName,
    });
  // In a conversation thread the call joins its memory: it waits its turn after a run under way.
  const inTurn = <T>(task: () => Promise<T>) => (thread ? context.queues.exclusive(conversation.key, task) : task());
  return inTurn(() =>
    runDirectToolCall(context.store, context.memory, {
      conversation,
      remember: thread !== undefined,
      tool: chosen,
      args,
      context: {
        conversationId: conversation.key,
        guildId: interaction.guildId,
        channelId: interaction.channelId,
        requester: requesterIn(interaction, context),
        logger: context.logger,
      },
      timeoutMs: context.agent.toolTimeoutMs,
      secrets: context.agent.secrets,
      instanceId: context.instanceId,
      requester: interaction.user.id,
      signal: stopped,
    }),
  );
}

/** The result posted as the reply, with the images it returned as files; the run recorded as delivered or not. */
async function postOutcome(
  interaction: ChatInputCommandInteraction<'cached'>,
  context: CommandContext,
  chosen: RuntimeTool,
  args: unknown,
  outcome: Awaited<ReturnType<typeof runDirectToolCall>>,
): Promise<void> {
  const shown = renderToolTurn(
    [{ name: chosen.name, arguments: JSON.stringify(args), ok: outcome.ok, text: outcome.text }],
    'all',
  );
  try {
    // Images the tool returned (an MCP server's) come as files, as many as one message takes.
    const { files, left } = imageFiles(outcome.images);
    const content = left > 0 ? withNote(shown, imagesNotPosted(left, tooManyFiles)) : shown;
    const posted = await interaction
      .editReply({ content, files, allowedMentions: { parse: [] } })
      .catch((error: unknown) => {
        // Too large for Discord's upload limit, say: the result is posted as text all the same.
        if (files.length === 0 || !refusedFiles(error)) throw error;
        context.logger.warn({ err: error, tool: chosen.name }, "could not post a tool's images");
        const note = imagesNotPosted(outcome.images.length, `Discord refused the files: ${error.message}`);
        return interaction.editReply({ content: withNote(shown, note), files: [], allowedMentions: { parse: [] } });
      });
    context.store.runs.addPostedMessage(outcome.runId, posted.id);
    context.lifecycle.deliver(outcome.runId, 'posted');
  } catch (error) {
    context.lifecycle.deliver(outcome.runId, 'post-failed');
    throw error;
  }
}

/** The result with a line after it, the result cut to leave the line room in one message. */
function withNote(shown: string, note: string): string {
  return `${truncate(shown, discordMessageLimit - note.length - 1)}\n${note}`;
}
