import { describeStatus } from '../src/agent/tool.ts';
import { currentTools } from '../src/agent/tool-registry.ts';
import { defineCommand } from '../src/discord/interactions/command-context.ts';
import { knowledgeToolName, toolAllowedBy } from '../src/place-settings/place-choice.ts';
import { placeOfInteraction, settingsHere } from '../src/discord/interactions/settings-place.ts';
import { splitMessage } from '../src/posts/split-message.ts';
import { isModerator } from '../src/discord/interactions/moderation.ts';
import { noWebSearchHint, webSearchToolName } from '../src/web/search/search-types.ts';
import { guildOnly, privately } from './shared.ts';

export const help = defineCommand({
  name: 'help',
  moderatorOnly: false,
  data: () => ({ name: 'help', description: 'What this bot does, and the tools it can use.', ...guildOnly }),
  async execute(interaction, context) {
    const here = settingsHere(interaction, context);
    const allowed = toolAllowedBy(here, context.toolServers);
    // The MCP servers' states and the operator's settings are for moderators (checked as for any moderator command).
    const moderator = isModerator(interaction.member, interaction.channel, context.moderatorRoleIds);
    const offered = currentTools(context.tools, context.toolServers);
    // search_knowledge is offered only where moderators added knowledge (src/place-settings/place-choice.ts).
    const place = placeOfInteraction(interaction);
    const channelIds = [place.channelId, place.threadId].filter((id): id is string => id !== null);
    const noKnowledge = !context.knowledge.base.has({ guildId: place.guildId, channelIds });
    const tools = offered.map(
      (tool) =>
        `- **${tool.name}**${tool.moderatorOnly ? ' (moderators)' : ''}${allowed(tool) ? '' : ' (off here)'}${tool.name === knowledgeToolName && noKnowledge ? ' (no knowledge here yet)' : ''}: ${tool.description}`,
    );
    const pieces = splitMessage(
      [
        'Mention me in a channel and I open a thread for the conversation; in that thread I answer every message and remember what was said.',
        'I work by calling tools, and show each call before I answer. `/ask` starts a conversation, `/tool` runs a tool yourself, `/stop` stops my answer in progress, `/reset` makes me forget this thread, `/model` chooses the model of this conversation, `/summarize` catches you up on a channel, `/forget-me` shows what I keep of yours and deletes it for good.',
        'A wrong or harmful answer? Right-click (or long-press) it → Apps → **Report answer**: the moderators see it.',
        ...(here?.memberMemory.value
          ? [
              'Member memory is on in this server: ask me to remember something about you, and I use it in your own conversations only; `/memory` shows it to you alone and forgets it.',
            ]
          : []),
        '',
        '**Tools**',
        ...tools,
        ...(context.toolServers.length === 0 || !moderator
          ? []
          : [
              '',
              '**MCP servers**',
              ...context.toolServers.map((server) => `- **${server.name}**: ${describeStatus(server.status())}`),
            ]),
        // Last, so that a long list of tools and servers keeps them in the first message. How the
        // operator would add it is for moderators: members are told only that it is not here.
        ...(offered.some((tool) => tool.name === webSearchToolName)
          ? []
          : ['', moderator ? `${noWebSearchHint} (Only moderators see this hint.)` : 'I cannot search the web here.']),
      ].join('\n'),
    );
    // Many tools with long descriptions pass one message: the rest follow, private too.
    for (const piece of pieces) await privately(interaction, piece);
  },
});
