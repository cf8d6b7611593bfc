/**
 * `/schedule`: prompts moderators set to run at times in a channel (add, list, pause, resume,
 * remove). Each subcommand checks, from Discord's permissions at each use, that the member
 * moderates the schedule's channel (src/discord/interactions/moderation.ts). The runs themselves
 * are started by the scheduler (src/discord/outbound/scheduled-runs.ts).
 */
import {
  ApplicationCommandOptionType,
  ChannelType,
  type APIApplicationCommandSubcommandOption,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { RoutineRow, ScheduleRow } from '../db/schedules.ts';
import { type CommandContext, type CommandSetup, defineCommand } from '../src/discord/interactions/command-context.ts';
import { settingsOfConversation } from '../src/place-settings/place-choice.ts';
import { isModerator } from '../src/discord/interactions/moderation.ts';
import { nextTimeAfter, readScheduleTimes } from '../src/schedules/schedule-times.ts';
import { truncate, truncateLine } from '../src/text/truncate.ts';
import { guildOnly, modelChoices, moderatorVisibility, privately } from './shared.ts';

/** Schedules one server may hold. */
const maxPerServer = 50;

const idOption = (description: string) => ({
  type: ApplicationCommandOptionType.Integer as const,
  name: 'id',
  description,
  required: true,
  autocomplete: true,
});

/** `add`, its model option offering the operator's models (Discord takes at most 25 choices). */
const addSubcommand = (setup: CommandSetup): APIApplicationCommandSubcommandOption => ({
  type: ApplicationCommandOptionType.Subcommand,
  name: 'add',
  description: 'Run a prompt at times in a channel (moderators of that channel).',
  options: [
    {
      type: ApplicationCommandOptionType.String,
      name: 'name',
      description: 'What to call it (its thread is named so).',
      required: true,
      max_length: 80,
    },
    {
      type: ApplicationCommandOptionType.String,
      name: 'prompt',
      description: 'What I am asked each time.',
      required: true,
      max_length: 1500,
    },
    {
      type: ApplicationCommandOptionType.String,
      name: 'when',
      description: '`daily 09:00`, `weekdays 09:00`, `mondays 18:00`, `every 6h`, or cron (5 fields).',
      required: true,
      max_length: 100,
    },
    {
      type: ApplicationCommandOptionType.Channel,
      name: 'channel',
      description: 'Where it runs (default: here).',
      channel_types: [ChannelType.GuildText, ChannelType.GuildAnnouncement],
    },
    {
      type: ApplicationCommandOptionType.String,
      name: 'time_zone',
      description: 'An IANA time zone, e.g. Europe/Paris (default UTC).',
      max_length: 64,
    },
    {
      type: ApplicationCommandOptionType.String,
      name: 'post_as',
      description: 'A new thread per run (default), or one message in the channel.',
      choices: [
        { name: 'a new thread', value: 'thread' },
        { name: 'one message', value: 'message' },
      ],
    },
    {
      type: ApplicationCommandOptionType.String,
      name: 'model',
      description: "The model of its runs, among those allowed there (default: the channel's).",
      choices: modelChoices(setup.modelListings).slice(0, 25),
    },
    {
      type: ApplicationCommandOptionType.String,
      name: 'persona',
      description: "The persona of its runs (default: the channel's). Runs in a thread only.",
      max_length: 4000,
    },
  ],
});

const subcommands = (setup: CommandSetup): APIApplicationCommandSubcommandOption[] => [
  addSubcommand(setup),
  {
    type: ApplicationCommandOptionType.Subcommand,
    name: 'list',
    description: 'The schedules of channels you moderate here.',
  },
  {
    type: ApplicationCommandOptionType.Subcommand,
    name: 'pause',
    description: 'Pause a schedule.',
    options: [idOption('The schedule to pause.')],
  },
  {
    type: ApplicationCommandOptionType.Subcommand,
    name: 'resume',
    description: 'Resume a paused schedule.',
    options: [idOption('The schedule to resume.')],
  },
  {
    type: ApplicationCommandOptionType.Subcommand,
    name: 'remove',
    description: 'Remove a schedule.',
    options: [idOption('The schedule to remove.')],
  },
];

type Interaction = ChatInputCommandInteraction<'cached'>;

/** Whether the member moderates the channel, as Discord says now. */
function moderates(interaction: Interaction, context: CommandContext, channelId: string): boolean {
  const channel = interaction.guild.channels.cache.get(channelId) ?? null;
  return channel !== null && isModerator(interaction.member, channel, context.moderatorRoleIds);
}

/** `<t:…:f>`, or what stands for no next time. */
const nextLine = (schedule: ScheduleRow) =>
  schedule.paused_at !== null
    ? 'paused'
    : schedule.next_run_at === null
      ? 'no time left'
      : `next <t:${Math.floor(schedule.next_run_at / 1000)}:f>`;

const describe = (schedule: ScheduleRow) =>
  `**${schedule.id}** · ${truncateLine(schedule.name, 60)} · <#${schedule.channel_id}> · \`${schedule.when_text}\` ${schedule.time_zone} · ${nextLine(schedule)}`;

async function add(interaction: Interaction, context: CommandContext): Promise<void> {
  const picked = interaction.options.getChannel('channel');
  const here = interaction.channel?.isThread() ? interaction.channel.parentId : interaction.channelId;
  const channelId = picked?.id ?? here;
  if (!channelId || !moderates(interaction, context, channelId))
    return privately(interaction, 'Schedules are set by moderators of their channel.');
  const when = interaction.options.getString('when', true);
  const times = readScheduleTimes(when, interaction.options.getString('time_zone') ?? 'UTC');
  if (typeof times === 'string') return privately(interaction, times);
  if (context.store.schedules.inGuild(interaction.guildId).length >= maxPerServer)
    return privately(interaction, `This server has ${maxPerServer} schedules already: remove one first.`);
  const postAs = interaction.options.getString('post_as') === 'message' ? 'message' : 'thread';
  const chosen = runChoice(interaction, context, channelId, postAs);
  if (typeof chosen === 'string') return privately(interaction, chosen);
  const next = nextTimeAfter(times, Date.now());
  const name = interaction.options.getString('name', true);
  const id = context.store.schedules.add({
    guild_id: interaction.guildId,
    channel_id: channelId,
    name,
    prompt: interaction.options.getString('prompt', true),
    when_text: when,
    cron: times.cron,
    time_zone: times.timeZone,
    post_as: postAs,
    ...chosen,
    created_by_id: interaction.user.id,
    created_by_name: interaction.member.displayName,
    next_run_at: next,
  });
  return privately(interaction, `Schedule ${id} set: ${describe(context.store.schedules.byId(id)!)}.`);
}

/** The model and persona asked for, if the place allows them (a model the operator offers, and not another than a channel kept on one); else why not. */
function runChoice(
  interaction: Interaction,
  context: CommandContext,
  channelId: string,
  postAs: 'thread' | 'message',
): { model: string | null; persona: string | null } | string {
  const model = interaction.options.getString('model');
  const persona = interaction.options.getString('persona')?.trim() || null;
  if ((model || persona) && postAs === 'message')
    return 'A model or persona of its own applies to runs in a thread: leave `post_as` as a new thread.';
  if (model === null) return { model, persona };
  if (!context.models.entry(model)) return `The operator offers no model named "${truncateLine(model, 64)}".`;
  const place = { guild_id: interaction.guildId, channel_id: channelId, thread_id: null };
  const channel = settingsOfConversation(context.store, context.models, place)!;
  if (channel.modelOnly.value && model !== channel.model.value)
    return `The moderators keep <#${channelId}> on **${channel.model.value}**: a schedule there cannot choose another.`;
  return { model, persona };
}

/**
 * The schedule named by `id`, if it is in this server and the member moderates its channel; else
 * why not. A member's reminder (a schedule of theirs) is no moderator's to see or change.
 */
function scheduleToChange(interaction: Interaction, context: CommandContext): RoutineRow | string {
  const schedule = context.store.schedules.byId(interaction.options.getInteger('id', true));
  if (schedule?.kind !== 'routine' || schedule.guild_id !== interaction.guildId)
    return 'There is no such schedule in this server.';
  if (!moderates(interaction, context, schedule.channel_id))
    return `Schedule ${schedule.id} is changed by moderators of <#${schedule.channel_id}>.`;
  return schedule;
}

async function change(interaction: Interaction, context: CommandContext, what: string): Promise<void> {
  const schedule = scheduleToChange(interaction, context);
  if (typeof schedule === 'string') return privately(interaction, schedule);
  const { schedules } = context.store;
  if (what === 'remove') {
    schedules.remove(schedule.id);
    return privately(interaction, `Schedule ${schedule.id} (${schedule.name}) removed.`);
  }
  if (what === 'pause') schedules.setNext(schedule.id, null, Date.now());
  // Resumed from now: the times it was paused through are not run.
  else
    schedules.setNext(
      schedule.id,
      nextTimeAfter({ cron: schedule.cron, timeZone: schedule.time_zone }, Date.now()),
      null,
    );
  return privately(interaction, `Schedule ${schedule.id}: ${describe(schedules.byId(schedule.id)!)}.`);
}

async function list(interaction: Interaction, context: CommandContext): Promise<void> {
  const mine = context.store.schedules
    .inGuild(interaction.guildId)
    .filter((schedule) => moderates(interaction, context, schedule.channel_id));
  if (mine.length === 0)
    return privately(interaction, 'No schedules in channels you moderate here. `/schedule add` sets one.');
  return privately(interaction, truncate(mine.map(describe).join('\n'), 1900));
}

export const schedule = defineCommand({
  name: 'schedule',
  // Checked per schedule: against the schedule's channel, not the one the command is used in.
  moderatorOnly: false,
  data: (setup) => ({
    name: 'schedule',
    description: 'Prompts I run at times in a channel (moderators).',
    ...guildOnly,
    ...moderatorVisibility(setup),
    options: subcommands(setup),
  }),
  async execute(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const sub = interaction.options.getSubcommand();
    if (sub === 'add') return add(interaction, context);
    if (sub === 'list') return list(interaction, context);
    return change(interaction, context, sub);
  },
  async autocomplete(interaction, context) {
    const typed = String(interaction.options.getFocused());
    const choices = context.store.schedules
      .inGuild(interaction.guildId)
      .filter((row) =>
        isModerator(
          interaction.member,
          interaction.guild.channels.cache.get(row.channel_id) ?? null,
          context.moderatorRoleIds,
        ),
      )
      .filter(
        (row) =>
          typed === '' || String(row.id).startsWith(typed) || row.name.toLowerCase().includes(typed.toLowerCase()),
      )
      .slice(0, 25)
      .map((row) => ({ name: truncateLine(`${row.id} · ${row.name}`, 100), value: row.id }));
    await interaction.respond(choices);
  },
});
