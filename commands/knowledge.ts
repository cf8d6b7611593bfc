/**
 * `/knowledge`: what the server's knowledge holds, for the agent's `search_knowledge` to find and
 * cite (docs/knowledge.md). Moderators fill it: `add` (a file or a URL), `add-pins` (a channel's
 * pinned messages); and see it: `list`, `remove`, `search` (what the agent would find). Each
 * subcommand checks, at each use, that the member moderates where the knowledge goes: the whole
 * server, or one channel (`channel:`) (src/discord/interactions/knowledge-scope.ts). The message
 * context menu "Add to knowledge" is commands/add-to-knowledge.ts.
 */
import {
  ApplicationCommandOptionType,
  ChannelType,
  type APIApplicationCommandChannelOption,
  type APIApplicationCommandSubcommandOption,
} from 'discord.js';
import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { knowledgeScope } from '../src/discord/interactions/knowledge-scope.ts';
import { truncateLine } from '../src/text/truncate.ts';
import { addFileOrPage, addPins } from './knowledge-add.ts';
import { listKnowledge, removeKnowledge, searchKnowledgeHere } from './knowledge-list.ts';
import { guildOnly, moderatorVisibility } from './shared.ts';

/** The channels knowledge may be kept for: where people ask. */
const placeChannelTypes: APIApplicationCommandChannelOption['channel_types'] = [
  ChannelType.GuildText,
  ChannelType.GuildAnnouncement,
  ChannelType.GuildForum,
];

const scopeOption = (description: string): APIApplicationCommandChannelOption => ({
  type: ApplicationCommandOptionType.Channel,
  name: 'channel',
  description,
  channel_types: placeChannelTypes,
});

const subcommands: APIApplicationCommandSubcommandOption[] = [
  {
    type: ApplicationCommandOptionType.Subcommand,
    name: 'add',
    description: 'Add a document (a file, or a web page) to what I know here.',
    options: [
      {
        type: ApplicationCommandOptionType.Attachment,
        name: 'file',
        description: 'Text, Markdown, HTML, JSON, CSV, PDF or Word (.docx).',
      },
      {
        type: ApplicationCommandOptionType.String,
        name: 'url',
        description: 'A public web page or file (http:// or https://).',
        max_length: 2048,
      },
      scopeOption('Only for this channel (default: the whole server).'),
    ],
  },
  {
    type: ApplicationCommandOptionType.Subcommand,
    name: 'add-pins',
    description: "Add a channel's pinned messages to what I know here.",
    options: [
      {
        type: ApplicationCommandOptionType.Channel,
        name: 'channel',
        description: 'The channel whose pins to add.',
        required: true,
        channel_types: [ChannelType.GuildText, ChannelType.GuildAnnouncement],
      },
      {
        type: ApplicationCommandOptionType.Boolean,
        name: 'only_there',
        description: 'Known in that channel only (default: in the whole server).',
      },
    ],
  },
  {
    type: ApplicationCommandOptionType.Subcommand,
    name: 'list',
    description: 'The documents I know here.',
    options: [scopeOption("Only this channel's (default: the whole server's).")],
  },
  {
    type: ApplicationCommandOptionType.Subcommand,
    name: 'remove',
    description: 'Remove a document from what I know.',
    options: [
      {
        type: ApplicationCommandOptionType.Integer,
        name: 'id',
        description: 'The document (its number in /knowledge list).',
        required: true,
        autocomplete: true,
      },
    ],
  },
  {
    type: ApplicationCommandOptionType.Subcommand,
    name: 'search',
    description: 'What I would find for a question, as the agent searches.',
    options: [
      {
        type: ApplicationCommandOptionType.String,
        name: 'query',
        description: 'The question or words.',
        required: true,
        max_length: 300,
      },
      scopeOption('Search as in this channel (default: here).'),
    ],
  },
];

export const knowledge = defineCommand({
  name: 'knowledge',
  // Checked per subcommand: against where the knowledge goes, not the channel the command is used in.
  moderatorOnly: false,
  data: (setup) => ({
    name: 'knowledge',
    description: 'Moderators: the documents, pins and FAQs I answer from here.',
    ...guildOnly,
    ...moderatorVisibility(setup),
    options: subcommands,
  }),
  async execute(interaction, context) {
    if (!interaction.isChatInputCommand()) return;
    const subcommand = interaction.options.getSubcommand();
    if (subcommand === 'add') return addFileOrPage(interaction, context);
    if (subcommand === 'add-pins') return addPins(interaction, context);
    if (subcommand === 'list') return listKnowledge(interaction, context);
    if (subcommand === 'remove') return removeKnowledge(interaction, context);
    if (subcommand === 'search') return searchKnowledgeHere(interaction, context);
  },
  // Only the documents this member may remove: a title is not shown to who may not change it.
  async autocomplete(interaction, context) {
    const typed = String(interaction.options.getFocused()).toLowerCase();
    const documents = context.knowledge.base
      .list(interaction.guildId)
      .filter(
        (document) => typeof knowledgeScope(interaction, context.moderatorRoleIds, document.channelId) !== 'string',
      )
      .filter((document) => `${document.id} ${document.source.title}`.toLowerCase().includes(typed));
    await interaction.respond(
      documents.slice(0, 25).map((document) => ({
        name: truncateLine(`${document.id} · ${document.source.title}`, 100),
        value: document.id,
      })),
    );
  },
});
