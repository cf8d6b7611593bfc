/**
 * The three checks without which nothing else matters: the server answers, takes the key, and
 * knows the model. The model list decides where it can; where it cannot (no list, or a list
 * without the model), the chat probes do: a 404 about the model there is the server's own word.
 */
import type { CheckupRow } from '../model-servers/server-summary.ts';
import type { ProbeOutcome } from './chat-probes.ts';
import { environmentNames, type SettingNames } from './doctor-settings.ts';
import type { AccessOutcome } from './server-access.ts';
import { truncate } from '../text/truncate.ts';
import { refusal } from './verdicts.ts';

/** Whether the probes that need the model may run at all: not without an answer, nor with the key refused. */
export function accessBlocked(access: AccessOutcome): boolean {
  return access.kind === 'unreachable' || access.status === 401 || access.status === 403;
}

/** The rows reachable, key and model, from the model list and (where it cannot tell) the chat probes. */
export function judgeAccess(
  access: AccessOutcome,
  chats: readonly ProbeOutcome[],
  settings: { model: string; apiKey: string | null },
  names: SettingNames = environmentNames,
): CheckupRow[] {
  if (access.kind === 'unreachable')
    return [
      {
        check: 'reachable',
        label: 'server reachable',
        status: 'fatal',
        result: `no: ${access.reason}`,
        action: `cannot work: check ${names.baseURL}, and that the server is running`,
      },
    ];
  const reachable: CheckupRow = {
    check: 'reachable',
    label: 'server reachable',
    status: 'ok',
    result: `yes (GET /models: ${access.status})`,
    action: 'none needed',
  };
  const answered = chats.some((chat) => chat.kind === 'reply' || chat.kind === 'stream');
  const key = keyRow(access, chats, answered, settings, names);
  // With the key refused, nothing is known of the model.
  if (key.status === 'fatal') return [reachable, key];
  return [reachable, key, modelRow(access, chats, answered, settings, names)];
}

/** An answer to GET /models, whatever its status. */
type AccessAnswered = Exclude<AccessOutcome, { kind: 'unreachable' }>;

/** The first refusal of this kind among the chat probes. */
function refusedBy(chats: readonly ProbeOutcome[], kind: string) {
  return chats.flatMap((chat) => (chat.kind === 'refused' && chat.error.kind === kind ? [chat.error] : []))[0];
}

/** Whether the server takes the key: refused by GET /models or a chat probe, confirmed by either, or not known. */
function keyRow(
  access: AccessAnswered,
  chats: readonly ProbeOutcome[],
  answered: boolean,
  settings: { apiKey: string | null },
  names: SettingNames,
): CheckupRow {
  const statusRefused = access.status === 401 || access.status === 403;
  const chatRefused = refusedBy(chats, 'bad-credentials');
  if (statusRefused || chatRefused)
    return {
      check: 'key',
      label: 'API key',
      status: 'fatal',
      result:
        chatRefused && !statusRefused
          ? refusal(chatRefused)
          : `refused (${access.status}): ${truncate(access.message, 90)}`,
      action: settings.apiKey
        ? `cannot work: set ${names.apiKey} to a key this server takes`
        : `cannot work: the server wants a key; set ${names.apiKey}`,
    };
  const keyConfirmed = access.status === 200 || answered;
  return {
    check: 'key',
    label: 'API key',
    status: keyConfirmed ? 'ok' : 'unknown',
    result: keyConfirmed ? (settings.apiKey ? 'accepted' : 'none needed') : 'not confirmed',
    action: keyConfirmed ? 'none needed' : 'not known',
  };
}

/** Whether the server knows the model: listed, refused by a chat probe as unknown, answering, or not known. */
function modelRow(
  access: AccessAnswered,
  chats: readonly ProbeOutcome[],
  answered: boolean,
  settings: { model: string },
  names: SettingNames,
): CheckupRow {
  const listed = access.status === 200 ? access.models : null;
  if (listed?.includes(settings.model))
    return { check: 'model', label: 'model', status: 'ok', result: 'listed by the server', action: 'none needed' };
  if (refusedBy(chats, 'model-not-found')) {
    const some =
      listed && listed.length > 0
        ? ` (it lists ${listed.slice(0, 8).join(', ')}${listed.length > 8 ? ', …' : ''})`
        : '';
    return {
      check: 'model',
      label: 'model',
      status: 'fatal',
      result: `unknown: the server does not know "${settings.model}"`,
      action: `cannot work: set ${names.model} to a model it serves${some}`,
    };
  }
  return {
    check: 'model',
    label: 'model',
    status: answered ? 'ok' : 'unknown',
    result: answered
      ? `answers${listed ? ' (not in its /models list)' : ' (no model list to check)'}`
      : 'not confirmed: no probe was answered',
    action: answered ? 'none needed' : 'not known',
  };
}
