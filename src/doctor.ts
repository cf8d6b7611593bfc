/**
 * `npm run doctor`: checks the configured model server and model in about a minute (reachable, key,
 * model, what it honours of tool calling, images, streaming, the bot's smallest request against the
 * context and prompt reuse, then one real agent run) and the web
 * search provider (one search, doctor/web-search-check.ts), prints what
 * the bot does about each gap, and exits 1 when the bot cannot work with it at all. The composition
 * root: settings, database, the checkup, the report.
 *
 * It registers no instance, so it is safe beside a running bot (WAL lets it write while the bot
 * does); it creates the database if there is none, because it records what it learns there: the
 * fixes, which the bot then applies, and the report, which the bot logs at start. `--learned` lists
 * what is remembered, and `--forget MODEL` undoes it (doctor/remembered.ts). With MCP_CONFIG, each MCP
 * server is then started, listed and stopped (doctor/mcp-checkup.ts).
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { openStore } from '../db/store.ts';
import { databasePathSetting, formatProblems, mergeEnvironment, readDotenv } from './settings/config.ts';
import { runCheckup } from './doctor/checkup.ts';
import { checkMcpServers } from './doctor/mcp-checkup.ts';
import { readDoctorSettings } from './doctor/doctor-settings.ts';
import { forgetRemembered, forgetUsage, listRemembered } from './doctor/remembered.ts';
import { formatReport } from './doctor/report-table.ts';
import { checkWebSearch } from './doctor/web-search-check.ts';
import { errorMessage } from './agent/errors.ts';
import { profileFor } from './model-servers/profiles/index.ts';
import { recordsInDatabase } from './model-servers/server-records.ts';
import { openStoreOrExit } from './app/startup.ts';
import { buildToolRegistry } from './agent/tool-registry.ts';
import { builtInTools, databaseTools } from '../tools/index.ts';

const usage = [
  'usage: npm run doctor   checks OPENAI_BASE_URL and OPENAI_MODEL (from the environment, then .env); exits 1 when the bot cannot work with them',
  '       npm run doctor -- [--model NAME]   with MODELS_FILE: checks its default model, or the one named',
  '       npm run doctor -- --learned        lists what the database remembers per server and model (fixes learned, last checkup)',
  `       ${forgetUsage}   forgets what is remembered of a model (its id on the server, as --learned lists it; --server when several servers have it)`,
].join('\n');

let values;
try {
  ({ values } = parseArgs({
    options: {
      model: { type: 'string' },
      learned: { type: 'boolean', default: false },
      forget: { type: 'string' },
      server: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (error) {
  console.error(`${errorMessage(error)}\n${usage}`);
  process.exit(2);
}
if (values.help) {
  console.log(usage);
  process.exit(0);
}
if (values.server !== undefined && values.forget === undefined) {
  console.error(`--server goes with --forget MODEL\n${usage}`);
  process.exit(2);
}
if (values.learned || values.forget !== undefined) {
  process.exit(remembered(values.forget ?? null, values.server ?? null));
}

const loaded = readDoctorSettings(process.env, readDotenv('.env'), { modelName: values.model ?? null });
if (!loaded.ok) {
  console.error(formatProblems(loaded.problems));
  process.exit(1);
}
const { model: settings, databasePath, names, memoryTokenBudget } = loaded.settings;
const profile = profileFor(settings.provider ?? 'auto', settings.baseURL);
const store = openStoreOrExit(databasePath);
try {
  const records = recordsInDatabase(store.modelServers);
  // The tools every conversation offers (web_search apart, which needs a provider): the bot's smallest request.
  const defaultTools = buildToolRegistry([...builtInTools, ...databaseTools(store)]);
  const report = await runCheckup({ settings, profile, records, names, defaultTools, memoryTokenBudget });
  // Stored under the base URL as configured: the key the bot reads its records by.
  records.saveCheckup(settings.baseURL, settings.model, report);
  console.log(formatReport(report, databasePath));
  console.log(`\n${(await checkWebSearch(mergeEnvironment(process.env, readDotenv('.env')))).join('\n')}`);
  process.exitCode = report.works ? 0 : 1;
} finally {
  store.close();
}
const environment = mergeEnvironment(process.env, readDotenv('.env'));
const mcp = await checkMcpServers(environment, databasePath);
if (mcp) {
  console.log(`\n${mcp.text}`);
  if (!mcp.startsBot) process.exitCode = 1;
}

/** `--learned` (forget null) or `--forget MODEL`: only DATABASE_PATH is read, and no database is made. */
function remembered(forget: string | null, server: string | null): number {
  const databasePath = databasePathSetting();
  if (!existsSync(databasePath)) {
    console.log(`There is no database at ${databasePath} (DATABASE_PATH): nothing is remembered.`);
    return forget === null ? 0 : 1;
  }
  let store;
  try {
    store = openStore(databasePath, { readOnly: forget === null });
  } catch (error) {
    console.error(`Cannot open the database ${databasePath}: ${errorMessage(error)}`);
    return 1;
  }
  try {
    if (forget === null) {
      console.log(listRemembered(store.modelServers, databasePath));
      return 0;
    }
    const outcome = forgetRemembered(store.modelServers, forget, server);
    (outcome.forgotten ? console.log : console.error)(outcome.message);
    return outcome.forgotten ? 0 : 1;
  } finally {
    store.close();
  }
}
