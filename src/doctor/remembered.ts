/**
 * `npm run doctor -- --learned` and `-- --forget MODEL`: what the database remembers of each model
 * server and model (the fixes learned from its answers, by the bot or the doctor, and the doctor's
 * last report), listed, and forgotten per server and model, so that undoing a doctor run needs no
 * SQLite tool. The bot reads the fixes at each request; what it decided at start from them (images
 * on or off) changes at its next start.
 */
import type { createModelServerQueries } from '../../db/model-servers.ts';
import { shownURL } from '../model-servers/openai-transport.ts';
import { describeFixes } from '../model-servers/server-fixes.ts';
import { recordsInDatabase } from '../model-servers/server-records.ts';
import { formatDate, readCheckup } from '../model-servers/server-summary.ts';

type Queries = ReturnType<typeof createModelServerQueries>;

export const forgetUsage = 'npm run doctor -- --forget MODEL [--server URL]';

/** Each server and model remembered, in a few lines: what the bot applies to it, and the last checkup. */
export function listRemembered(queries: Queries, databasePath: string): string {
  const rows = queries.list();
  if (rows.length === 0)
    return `Nothing is remembered in ${databasePath}: no fixes learned, no doctor report. The bot uses its profiles alone.`;
  const records = recordsInDatabase(queries);
  const out = [`Remembered in ${databasePath}, per model server and model (the bot applies these):`];
  for (const row of rows) {
    const record = records.read(row.server, row.model);
    const learned = describeFixes(record?.learned ?? {});
    const checkup = readCheckup(record?.checkup ?? null);
    out.push(
      `  ${shownURL(row.server, null)}  model ${row.model}`,
      `    learned: ${learned.length > 0 ? learned.join('; ') : 'nothing'}`,
      `    doctor: ${checkup ? `checked ${formatDate(checkup.checkedAt)}, ${checkup.works ? 'works' : 'did not work'}` : 'never checked'}`,
    );
  }
  out.push(`To forget one (its fixes and report): ${forgetUsage}`);
  return out.join('\n');
}

/** Forgets `model` at `server` (at its one server when null); the message, and whether anything was forgotten. */
export function forgetRemembered(
  queries: Queries,
  model: string,
  server: string | null,
): { forgotten: boolean; message: string } {
  const trim = (url: string) => url.replace(/\/+$/, '');
  const matches = queries
    .list()
    .filter((row) => row.model === model && (server === null || trim(row.server) === trim(server)));
  if (matches.length === 0)
    return {
      forgotten: false,
      message: `Nothing is remembered of model "${model}"${server === null ? '' : ` at ${shownURL(server, null)}`}: npm run doctor -- --learned lists what is.`,
    };
  if (matches.length > 1)
    return {
      forgotten: false,
      message: `Model "${model}" is remembered at ${matches.length} servers: name one with --server (${matches.map((row) => shownURL(row.server, null)).join(', ')}).`,
    };
  const row = matches[0]!;
  const learned = describeFixes(recordsInDatabase(queries).read(row.server, row.model)?.learned ?? {});
  queries.forget(row.server, row.model);
  return {
    forgotten: true,
    message: [
      `Forgot model ${row.model} at ${shownURL(row.server, null)}: ${learned.length > 0 ? `the fixes (${learned.join('; ')})` : 'no fixes'} and the doctor's report.`,
      "The bot's next request to it goes without them (it learns again from the server's answers); what it decided at start from them, such as images, changes at its next start.",
    ].join('\n'),
  };
}
