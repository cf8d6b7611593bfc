/**
 * `npm run chat [-- --thread NAME]`: talk to the agent from a terminal, interactive or piped.
 * The composition root for the terminal: settings, model client, tools, then the session.
 */
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { createOpenAIModelClient } from './agent/openai-model-client.ts';
import { buildToolRegistry } from './agent/tool-registry.ts';
import { formatProblems, parseConfig, readDotenv } from './config.ts';
import { createLogger } from './logging.ts';
import { runChatSession } from './terminal/chat-session.ts';
import { pino } from 'pino';
import { builtInTools } from '../tools/index.ts';

const usage = 'usage: npm run chat -- [--thread NAME]';
let thread: string;
try {
  const { values } = parseArgs({ options: { thread: { type: 'string', default: 'console' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  thread = values.thread;
} catch (error) {
  console.error(`${(error as Error).message}\n${usage}`);
  process.exit(2);
}

const loaded = parseConfig(process.env, readDotenv('.env'));
if (!loaded.ok) {
  console.error(formatProblems(loaded.problems));
  process.exit(1);
}
const { config } = loaded;
// Logs go to stderr, so that stdout holds the conversation alone.
const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, pino.destination(2));
const name = process.env.USER || userInfo().username || 'you';

await runChatSession({
  input: process.stdin,
  output: process.stdout,
  interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
  thread,
  user: { id: `terminal:${name}`, displayName: name, isModerator: true },
  model: createOpenAIModelClient(config.model),
  tools: buildToolRegistry(builtInTools),
  settings: config.agent,
  operatorPrompt: config.systemPrompt,
  logger,
});
