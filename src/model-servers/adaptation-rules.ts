/**
 * When the bot changes how it speaks to a server, from what a reply shows: the rules the client
 * applies in a run (server-client.ts) and `npm run doctor` reports (src/doctor/verdicts.ts).
 */
import type { ProviderProfile } from './profiles/profile.ts';
import type { ServerFixes, ToolProtocol } from './server-fixes.ts';

export interface Adapting {
  profile: ProviderProfile;
  /** TOOL_PROTOCOL: only `auto` adapts. */
  toolProtocol: ToolProtocol | 'auto';
  /** The fixes in effect. */
  fixes: ServerFixes;
}

/**
 * A reply without a call where one was forced means the server ignores the forced choice, and the
 * bot moves to the text protocol: unless the operator chose the protocol, or it is in use already,
 * or the profile says the server enforces the choice (then it is a fluke, not a habit), or the
 * reply was cut short (its length, a content filter), which says nothing of the choice.
 */
export function switchesToText(adapting: Adapting, finishReason: string | null = null): boolean {
  if (adapting.toolProtocol !== 'auto' || adapting.fixes.toolProtocol === 'text') return false;
  if (adapting.profile.honours.requiredChoice === 'yes') return false;
  return finishReason !== 'length' && finishReason !== 'content_filter';
}

/**
 * A named choice answered with another tool means the server does not honour it, and the bot sends
 * it as "required" with that tool alone: unless the operator chose the protocol, the text protocol
 * is in use (its prompt names the tool), the fix is in place, or the profile says it is enforced.
 */
export function learnsNamedChoice(adapting: Adapting): boolean {
  if (adapting.toolProtocol !== 'auto' || adapting.fixes.toolProtocol === 'text') return false;
  return adapting.fixes.namedChoice !== 'required-with-one-tool' && adapting.profile.honours.namedChoice !== 'yes';
}
