import { z } from 'zod';
import { directMessagesServerId } from '../db/conversations.ts';
import type { MemberFactQueries } from '../db/member-facts.ts';
import { defineTool } from './define-tool.ts';

/** What a member may have remembered in one place: this many facts, each this long at most. */
export const memberFactLimits = { count: 50, characters: 300 };

/**
 * Member memory (`/settings member-memory`): a fact the person who asked wants kept about them, in
 * this server (or their DMs). It is theirs: written for the run's requester, never for a member the
 * model names. Offered only where member memory is on (src/conversation/member-facts.ts), and never
 * listed for `/tool`. Its argument is private: the step log records that a fact was remembered and
 * its length, not the fact.
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
    execute({ fact }, context) {
      const who = context.requester;
      const text = fact.trim();
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
