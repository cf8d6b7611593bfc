/**
 * `npm run doctor`: checks the configured model server and model in under a minute (reachable, key,
 * model, what it honours of tool calling, images, streaming, then one real agent run), prints what
 * the bot does about each gap, and exits 1 when the bot cannot work with it at all. The composition
 * root: settings, database, the checkup, the report.
 *
 * It registers no instance, so it is safe beside a running bot (WAL lets it write while the bot
 * does); it creates the database if there is none, because it records what it learns there: the
 * fixes, which the bot then starts with, and the report, which the bot logs at start.
 */
import { formatProblems, readDotenv } from './config.ts';
import { runCheckup } from './doctor/checkup.ts';
import { readDoctorSettings } from './doctor/doctor-settings.ts';
import { formatReport } from './doctor/report-table.ts';
import { profileFor } from './model-servers/profiles/index.ts';
import { recordsInDatabase } from './model-servers/server-fixes.ts';
import { openStoreOrExit } from './startup.ts';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(
    [
      'usage: npm run doctor   checks OPENAI_BASE_URL and OPENAI_MODEL (from the environment, then .env); exits 1 when the bot cannot work with them',
      '       npm run doctor -- [--model NAME]   with MODELS_FILE: checks its default model, or the one named',
    ].join('\n'),
  );
  process.exit(0);
}

const modelFlag = process.argv.indexOf('--model');
const modelName = modelFlag === -1 ? null : (process.argv[modelFlag + 1] ?? '');
const loaded = readDoctorSettings(process.env, readDotenv('.env'), { modelName });
if (!loaded.ok) {
  console.error(formatProblems(loaded.problems));
  process.exit(1);
}
const { model: settings, databasePath } = loaded.settings;
const profile = profileFor(settings.provider ?? 'auto', settings.baseURL);
const store = openStoreOrExit(databasePath);
try {
  const records = recordsInDatabase(store.modelServers);
  const report = await runCheckup({ settings, profile, records });
  // Stored under the base URL as configured: the key the bot reads its records by.
  records.saveCheckup(settings.baseURL, settings.model, report);
  console.log(formatReport(report, databasePath));
  process.exitCode = report.works ? 0 : 1;
} finally {
  store.close();
}
