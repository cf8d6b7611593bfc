/**
 * Settings in words: what applies in a place and where each value comes from (`/settings show`),
 * and one change as the audit shows it (`/settings show`, `npm run steps`).
 */
import type { SettingChangeRow } from '../../db/place-settings.ts';
import type { ContentCheckKind } from '../content-check/content-check-settings.ts';
import type { ModelListing } from '../model-catalog/model-catalog.ts';
import { truncateLine } from '../text/truncate.ts';
import { type EffectiveSettings, settingKeys, type Sourced } from './effective-settings.ts';
import { formatCount } from '../text/count.ts';
import { escapeMarkdown } from '../text/markdown.ts';

/** Where a change was made, in words. */
function describeScope(change: Pick<SettingChangeRow, 'scope' | 'scope_id'>, inDiscord: boolean): string {
  const where = inDiscord ? (change.scope === 'server' ? '' : ` <#${change.scope_id}>`) : ` ${change.scope_id}`;
  return change.scope === 'server' ? 'the server' : `the ${change.scope}${where}`;
}

/** Who set a value where, and when (a Discord timestamp, shown in each reader's time zone). */
function source(sourced: Sourced<unknown>, fallback: string): string {
  const { change } = sourced;
  if (!change) return fallback;
  return `set for ${describeScope(change, true)} by ${escapeMarkdown(change.changed_by_name)}, <t:${Math.floor(change.changed_at / 1000)}:R>`;
}

/** One change, in a line: what, where, who, when. */
export function describeChange(change: SettingChangeRow, inDiscord: boolean): string {
  const when = inDiscord
    ? `<t:${Math.floor(change.changed_at / 1000)}:R>`
    : new Date(change.changed_at).toISOString().slice(0, 16).replace('T', ' ');
  const what =
    change.value === null
      ? `${change.key} cleared`
      : change.key === settingKeys.persona
        ? `persona v${change.id} "${truncateLine(change.value, 60)}"`
        : change.key.startsWith('tool:')
          ? `${change.key.slice(5)} ${change.value === 'on' ? 'enabled' : 'disabled'}`
          : `${change.key} = ${change.value}`;
  const who = inDiscord
    ? escapeMarkdown(change.changed_by_name)
    : `${change.changed_by_name} (${change.changed_by_id})`;
  return `${what} for ${describeScope(change, inDiscord)} by ${who}, ${when}`;
}

/** What `/settings show` says. */
export function describeSettings(
  settings: EffectiveSettings,
  models: readonly ModelListing[],
  recent: readonly SettingChangeRow[],
  /** The operator's CONTENT_CHECK (`off` unless given). */
  contentCheck: ContentCheckKind = 'off',
): string {
  const tools = [...settings.tools.entries()].map(
    ([name, sourced]) => `${name} ${sourced.value ? 'on' : 'off'} (${source(sourced, '')})`,
  );
  return [
    '**Settings here**',
    `- Model: **${settings.model.value}** (${source(settings.model, "the operator's default")})`,
    `- Threads may choose another model with /model: ${settings.modelOnly.value ? 'no' : 'yes'}${settings.modelOnly.change ? ` (${source(settings.modelOnly, '')})` : ''}`,
    settings.persona
      ? `- Persona v${settings.persona.change!.id} (${source(settings.persona, '')}): "${truncateLine(settings.persona.value, 300)}"`
      : "- Persona: none (the operator's prompt alone)",
    `- Tools switched on or off: ${tools.length > 0 ? tools.join('; ') : 'none (every tool is on)'}`,
    describeContentCheck(settings, contentCheck),
    `- Every new forum post answered: ${settings.forumAnswers.value ? 'yes' : 'no, only those that mention the bot'}${settings.forumAnswers.change ? ` (${source(settings.forumAnswers, '')})` : ''}`,
    `- Member memory: ${settings.memberMemory.value ? 'on' : 'off'} (${source(settings.memberMemory, 'off unless moderators switch it on')})`,
    '**Models on offer**',
    ...models.map((model) => {
      const facts = [
        ...(model.vision ? ['reads images'] : []),
        ...(model.contextTokens ? [`${formatCount(model.contextTokens)} tokens of context`] : []),
      ];
      return `- ${model.name}${model.description ? `: ${model.description}` : ''}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}`;
    }),
    ...(recent.length > 0
      ? ['**Recent changes in this server**', ...recent.map((change) => `- ${describeChange(change, true)}`)]
      : []),
  ].join('\n');
}

/** The content checks line: off for the operator, or on or off here and who switched them. */
function describeContentCheck(settings: EffectiveSettings, kind: ContentCheckKind): string {
  if (kind === 'off') return '- Content checks: off (the operator has not turned them on: CONTENT_CHECK)';
  const state = settings.contentCheck.value ? `on (${kind})` : 'off';
  return `- Content checks: ${state} (${source(settings.contentCheck, "the operator's default")})`;
}
