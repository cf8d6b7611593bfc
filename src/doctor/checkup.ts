/**
 * One checkup of a server and model, in four stages, in about a minute: the access (model list,
 * up to 8 s), then every capability probe at once (15 s each: they do not depend on each other),
 * then the bot's smallest request twice, one after the other (its size, and prompt reuse: 15 s
 * each), then the agent run with the bot's own client (25 s). Probes and requests cap their
 * replies, so a server whose model writes on until stopped answers each within seconds. What the
 * probes teach is remembered before the smallest request and the run, as the bot would remember it
 * on meeting the gap, so that both show the bot as it will be.
 */
import type { RuntimeTool } from '../agent/tool.ts';
import { maskSecrets } from '../model-servers/openai-transport.ts';
import type { OpenAIModelClientOptions } from '../model-servers/openai-model-client.ts';
import type { ProviderProfile } from '../model-servers/profiles/profile.ts';
import { describeFixes, mergeFixes, type ServerFixes } from '../model-servers/server-fixes.ts';
import type { ServerRecords } from '../model-servers/server-records.ts';
import type { CheckupRow, StoredCheckup } from '../model-servers/server-summary.ts';
import { accessBlocked, judgeAccess } from './access-verdicts.ts';
import { type ProbeOutcome, sendProbe } from './chat-probes.ts';
import { environmentNames, type SettingNames } from './doctor-settings.ts';
import { runEndToEnd } from './end-to-end.ts';
import { checkContextAndReuse, smallestRequest } from './prompt-reuse-check.ts';
import { type ProbeName, replyCapFor } from './probe-requests.ts';
import { rawConnection } from './raw-connection.ts';
import { judgeCapabilities, type Outcomes } from './verdicts.ts';
import { probeAccess } from './server-access.ts';

/** Time limits, chosen so that the whole checkup ends within 80 s whatever the server does (a minute where replies come in time). */
const limits = { accessMs: 8_000, probeMs: 15_000, reuseMs: 15_000, endToEndMs: 25_000 };

const probeNames: readonly ProbeName[] = ['required', 'named', 'strict', 'parallel', 'images', 'streaming'];

/** The report: what is stored, and what is printed besides. */
export interface DoctorReport extends StoredCheckup {
  server: string;
  model: string;
  providerName: string;
  /** How the profile was chosen, in words: `MODEL_PROVIDER=ollama`, or `found from OPENAI_BASE_URL` (or the models file's fields). */
  providerChosenBy: string;
  advice: string[];
  /** Every fix the bot applies to this server and model now (the profile's, learned, TOOL_PROTOCOL). */
  fixesInEffect: string[];
  /** Those this checkup learned. */
  learnedNow: string[];
}

/** Checks the server and model `settings` name; remembers what it learns in `records`, and returns the report (not saved). */
export async function runCheckup(options: {
  settings: OpenAIModelClientOptions;
  profile: ProviderProfile;
  records: ServerRecords;
  /** Where the settings were written (the environment's names unless given). */
  names?: SettingNames;
  signal?: AbortSignal;
  /** The tools every conversation offers (the built-in ones), for the bot's smallest request. */
  defaultTools?: readonly RuntimeTool[];
  /** MEMORY_TOKEN_BUDGET: what a conversation may add to the smallest request. */
  memoryTokenBudget: number;
}): Promise<DoctorReport> {
  const { settings, profile, records, names = environmentNames } = options;
  const signal = options.signal ?? new AbortController().signal;
  const { baseURL: server, model } = settings;
  const toolProtocol = settings.toolProtocol ?? 'auto';
  const learnedBefore = records.read(server, model)?.learned ?? {};
  const connection = rawConnection(profile, settings, limits.probeMs / 1000);
  const cap = replyCapFor(profile.id);

  const rows: CheckupRow[] = [];
  const access = await probeAccess(connection, limits.accessMs, signal);
  if (accessBlocked(access)) rows.push(...judgeAccess(access, [], settings, names));
  else {
    const sent = await Promise.all(
      probeNames.map(
        async (name) => [name, await sendProbe(connection, name, model, limits.probeMs, signal, cap)] as const,
      ),
    );
    const outcomes = Object.fromEntries(sent) as Outcomes;
    rows.push(...judgeAccess(access, Object.values(outcomes) as ProbeOutcome[], settings, names));
    if (!rows.some((row) => row.status === 'fatal')) {
      const judged = judgeCapabilities(outcomes, {
        profile,
        model,
        toolProtocol,
        fixes: mergeFixes(profile.fixes, learnedBefore),
        learned: learnedBefore,
      });
      if (Object.keys(judged.learn).length > 0) records.learn(server, model, judged.learn);
      const fixes = mergeFixes(profile.fixes, records.read(server, model)?.learned ?? {});
      if (toolProtocol !== 'auto') fixes.toolProtocol = toolProtocol;
      const smallest = smallestRequest(options.defaultTools ?? [], settings, fixes, cap);
      const sized = await checkContextAndReuse(connection, smallest, {
        limitMs: limits.reuseMs,
        signal,
        memoryTokenBudget: options.memoryTokenBudget,
        cap,
      });
      rows.push(...judged.rows, ...sized, await runEndToEnd(settings, records, limits.endToEndMs));
    }
  }

  const learnedAfter = records.read(server, model)?.learned ?? {};
  const inEffect: ServerFixes = mergeFixes(profile.fixes, learnedAfter);
  if (toolProtocol !== 'auto') inEffect.toolProtocol = toolProtocol;
  const before = new Set(describeFixes(learnedBefore));
  const mask = (text: string) => maskSecrets(text, settings.apiKey);
  return {
    checkedAt: new Date().toISOString(),
    provider: profile.id,
    works: rows.some((row) => row.check === 'end-to-end') && !rows.some((row) => row.status === 'fatal'),
    rows: rows.map((row) => ({ ...row, result: mask(row.result), action: mask(row.action) })),
    server: mask(server),
    model,
    providerName: profile.name,
    providerChosenBy:
      settings.provider && settings.provider !== 'auto'
        ? `${names.provider}: ${settings.provider}`
        : `found from ${names.baseURL}`,
    advice: [...profile.advice],
    fixesInEffect: describeFixes(inEffect),
    learnedNow: describeFixes(learnedAfter).filter((line) => !before.has(line)),
  };
}
