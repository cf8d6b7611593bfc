import { z } from 'zod';
import { directMessagesServerId } from '../db/conversations.ts';
import type { MemberFactQueries } from '../db/member-facts.ts';
import type { ToolContext } from '../src/agent/tool.ts';
import { defineTool } from './define-tool.ts';

/** What a member may have remembered in one place: this many facts, each this long at most. */
export const memberFactLimits = { count: 50, characters: 300 };

/**
 * Member memory (`/settings member-memory`): a fact the person who asked wants kept about them, in
 * this server (or their DMs). It is theirs: written for the run's requester, never for a member the
 * model names. Offered only where member memory is on (src/conversation/member-facts.ts), and never
 * listed for `/tool`. Its argument is private: the step log records that a fact was remembered and
 * its length, not the fact.
 *
 * Kept at once only on the member's own word: when nothing but their own words came into the run
 * before the call. After a forwarded message, a file, a link's preview or any tool's result (a web
 * page, a search, an MCP server's answer: `ToolContext.othersWords`), words not theirs may be
 * steering the model, so the member is asked first, privately: a form only they can open shows the
 * fact, which they keep (edited if they like) or decline. Where nobody can be asked, nothing is kept.
 */
export function remember(facts: MemberFactQueries) {
  const { count, characters } = memberFactLimits;
  return defineTool({
    name: 'remember',
    description: `Keep a fact about the person who asked, when they ask you to remember it (a preference, how to call them). You see it with their later messages in this server, and they alone see and remove it with /memory. Only facts they give about themselves; at most ${count} facts of ${characters} characters each.`,
    parameters: z.object({
      fact: z.string().min(1).describe('The fact, as a short sentence about them ("Uses metric units").'),
    }),
    privateArguments: 'fact remembered',
    async execute({ fact }, context) {
      const who = context.requester;
      const asked = context.othersWords ? await askFirst(fact.trim(), context) : { text: fact.trim() };
      if ('not' in asked) return asked.not;
      const { text } = asked;
      if (text.length > characters)
        throw new Error(
          `a remembered fact is at most ${characters} characters and this one has ${text.length}: tell ${who.displayName} so, and keep a shorter one`,
        );
      const outcome = facts.keep(context.guildId ?? directMessagesServerId, who.id, text, count);
      if (outcome.kept === 'full')
        throw new Error(
          `${who.displayName} has ${count} facts remembered here, the most I keep: tell them so; they can remove some with /memory forget`,
        );
      if (outcome.kept === 'already') return `Already remembered for ${who.displayName}.`;
      return `Remembered for ${who.displayName} (${outcome.count} of ${count} facts kept here). They see theirs with /memory and remove them with /memory forget.`;
    },
  });
}

/** The fact the member confirmed (as they left it in the form), or what to tell the model when they did not. */
async function askFirst(fact: string, context: ToolContext): Promise<{ text: string } | { not: string }> {
  const who = context.requester.displayName;
  if (!context.askInput)
    throw new Error(
      `nothing was remembered: words that are not ${who}'s own came into this conversation first, and I cannot ask them to confirm here; they may ask again in their own words`,
    );
  const outcome = await context.askInput({
    tool: 'remember',
    message: `Shall I remember something about you? Words that are not yours came in before I was asked to, so I ask you first. Open it to see the fact: keep it (edit it if you like), or decline.`,
    form: {
      kind: 'form',
      fields: [
        {
          name: 'fact',
          label: 'Remember this about you?',
          type: 'string',
          required: true,
          default: fact,
          maxLength: memberFactLimits.characters,
        },
      ],
    },
    requester: context.requester,
    signal: context.signal,
  });
  const kept = outcome.action === 'accept' ? outcome.content?.fact : undefined;
  if (typeof kept === 'string' && kept.trim() !== '') return { text: kept.trim() };
  return {
    not:
      outcome.action === 'decline'
        ? `Not remembered: ${who} declined. Do not ask again unless they do.`
        : `Not remembered: ${who} did not confirm it.`,
  };
}
