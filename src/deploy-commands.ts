/**
 * `npm run deploy-commands`: registers the slash commands by hand, in the server named by
 * DISCORD_GUILD_ID (instant, for development) or everywhere. Only when they differ from what
 * Discord has; `npm start` does the same at every start.
 */
import { REST, Routes } from 'discord.js';
import { pino } from 'pino';
import { commands } from '../commands/index.ts';
import { builtInTools, databaseTools } from '../tools/index.ts';
import { buildToolRegistry } from './agent/tool-registry.ts';
import { commandRegistry, syncCommands } from './discord/command-sync.ts';
import { toolSubcommands } from './discord/tool-options.ts';
import { createLogger } from './logging.ts';
import { McpConnection } from './mcp/mcp-connection.ts';
import { loadConfigOrExit, openStoreOrExit } from './startup.ts';

const config = loadConfigOrExit('bot');
// Written at once, so that its lines come before the closing message (pino buffers by default).
const logger = createLogger(config.logLevel, pino.destination({ dest: 1, sync: true }), config.secrets);
const rest = new REST({ api: config.discord.apiUrl }).setToken(config.discord.token!);
try {
  const application = (await rest.get(Routes.currentApplication())) as { id: string };
  // The same tools as `npm start` offers, so that its start finds the commands unchanged.
  const store = openStoreOrExit(config.databasePath);
  const tools = buildToolRegistry([...builtInTools, ...databaseTools(store)]);
  store.close();
  // MCP servers' subcommands come from the configuration alone: nothing is started.
  const toolServers = config.mcpServers.map((server) => new McpConnection(server, logger));
  const setup = {
    tools,
    toolServers,
    toolSubcommands: toolSubcommands(tools, toolServers),
    moderatorRoleIds: config.discord.moderatorRoleIds,
    models: config.models.models,
  };
  const changed = await syncCommands(
    commandRegistry(rest, application.id, config.discord.commandGuildId),
    commands.map((command) => command.data(setup)),
    logger,
  );
  console.log(changed ? 'Commands registered.' : 'Commands already up to date: nothing to do.');
} catch (error) {
  const status = (error as { status?: number }).status;
  console.error(
    status === 401
      ? 'Discord rejected DISCORD_TOKEN: copy the bot token again from the Developer Portal.'
      : `Could not register the commands: ${(error as Error).message}`,
  );
  process.exit(1);
}
