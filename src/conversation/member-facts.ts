/**
 * Member memory in a run: the `remember` tool and the requester's remembered facts, where the
 * place's PlaceChoice says it is on (`/settings member-memory`, MEMBER_MEMORY_IN_DMS).
 *
 * Whose facts: the run's requester's alone, and only when every message it answers is theirs. A
 * batch of several members' messages sees nobody's facts, and its `remember` refuses (it is offered
 * all the same, so the tools of the request stay as they were), so that one member's facts never
 * shape, nor get written from, an answer to another.
 *
 * Where: before the requester's message, as the last message of the request's input, fenced as a
 * JSON list. The system message and the history stay as they were, so a model server reuses what it
 * read of the conversation (docs/design-notes.md, "prompt reuse"); the facts are sent with each new
 * message and never stored in the thread's memory, so a later request's history does not change with
 * them, and `/forget-me` or `/memory forget` takes them out of the next request at once.
 */
import type { UserMessage } from '../agent/messages.ts';
import type { Requester, RuntimeTool } from '../agent/tool.ts';

/** Member memory as the runs use it (built in src/app/bot-services.ts). */
export interface MemberMemory {
  /** The `remember` tool (tools/remember.ts). */
  tool: RuntimeTool;
  /** A member's facts in a place (a server's id, or '@me' for DMs), oldest first. */
  factsOf(place: string, userId: string): readonly string[];
}

/** The tool and the facts one run gets: the facts null when a batch has several members. */
export function memberMemoryOfRun(
  memory: MemberMemory,
  place: string,
  requesters: readonly Requester[],
): { tool: RuntimeTool; facts: { of: Requester; facts: readonly string[] } | null } {
  const requester = requesters.at(-1);
  const oneMember = requester !== undefined && requesters.every((each) => each.id === requester.id);
  if (!oneMember) return { tool: refusing(memory.tool), facts: null };
  return { tool: memory.tool, facts: { of: requester, facts: memory.factsOf(place, requester.id) } };
}

/** The same tool as the model is offered it, refusing: this batch answers several members. */
function refusing(tool: RuntimeTool): RuntimeTool {
  return {
    ...tool,
    execute: () =>
      Promise.reject(
        new Error(
          'several members wrote in this batch, so nothing is remembered now: ask the member to say it again on its own',
        ),
      ),
  };
}

/**
 * The input with the member's facts before their words, in the last message (theirs): fenced, as a
 * JSON list whose `<` and `>` are escaped, so that a fact can neither close the fence nor pose as
 * another part of the prompt. `mask` takes the operator's secrets out.
 */
export function withMemberFacts(
  input: readonly UserMessage[],
  member: Requester,
  facts: readonly string[],
  mask: (text: string) => string,
): UserMessage[] {
  const last = input.at(-1);
  if (!last || facts.length === 0) return [...input];
  const fenced = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
  const block = `<remembered-facts member=${fenced(member.displayName)}>${fenced(facts.map(mask))}</remembered-facts>\n`;
  const content: UserMessage['content'] =
    typeof last.content === 'string' ? block + last.content : [{ type: 'text', text: block }, ...last.content];
  return [...input.slice(0, -1), { ...last, content }];
}
