/**
 * `scope` in MCP_CONFIG, through the bot: the reference `server-filesystem` given the working
 * directory (".") as its root, with `scope: "server"`, is one process per Discord server working in
 * a directory of its own, so that what one Discord server writes, another never reads; and the
 * reference `server-memory` with its graph file in the session's own directory (`${MCP_SCOPE_DIR}`).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/agent/logger.ts';
import { parseMcpConfig } from '../../../src/mcp/mcp-config.ts';
import { loadMcpServers, type McpServers } from '../../../src/mcp/mcp-servers.ts';
import { type BotWorld, mentionOf, startBotWorld } from '../../support/bot-harness.ts';
import { finalAnswer, toolCalls } from '../../support/fake-model.ts';
import { filesystemServerConfig, memoryServerConfig } from '../../support/mcp-reference-servers.ts';

let world: BotWorld | undefined;
let mcp: McpServers | undefined;
afterEach(async () => {
  await world?.close();
  await mcp?.close();
  world = undefined;
  mcp = undefined;
});

/** server-filesystem (from node_modules), its working directory as its root. */
const { command, args } = filesystemServerConfig(['.']);

/** The servers of an MCP_CONFIG file, as `npm start` loads them, working under `root`. */
async function serversOf(entries: Record<string, unknown>, root: string): Promise<McpServers> {
  const parsed = parseMcpConfig(JSON.stringify({ mcpServers: entries }));
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  mcp = await loadMcpServers(parsed.servers, silentLogger, root);
  await mcp.start();
  return mcp;
}

async function ask(w: BotWorld, channelId: string, content: string) {
  const before = new Set(w.discord.threads().map((thread) => thread.id));
  await w.discord.userSays({
    channelId,
    author: 'bob',
    content: `${mentionOf(w)} ${content}`,
    mentions: [w.discord.botUser.id],
  });
  const thread = await w.discord.waitFor(() => w.discord.threads().find((each) => !before.has(each.id)));
  // A session's first call starts its server (a node process): slower than a call, on a busy machine.
  return w.discord.waitFor(() => w.discord.botMessages(thread.id).length >= 2, {
    what: 'the answer',
    timeoutMs: 20_000,
  });
}

describe('MCP servers scoped by Discord server', () => {
  it('what one Discord server writes with server-filesystem, another does not read: a session and a directory each', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mcp-scopes-'));
    const servers = await serversOf({ files: { command, args, scope: 'server', confirm: 'never' } }, root);
    const w = (world = await startBotWorld({}, {}, {}, { toolServers: servers.connections }));
    const second = w.discord.addGuild('Second Server');
    // The bot learns of a guild when it connects (READY, GUILD_CREATE).
    await w.restart();

    w.model.enqueue(
      toolCalls({ name: 'files__write_file', arguments: { path: 'notes.txt', content: 'the first server’s secret' } }),
      finalAnswer('Noted.', ['files__write_file']),
    );
    await ask(w, w.discord.channels.general, 'note our secret');

    let readInSecond = '';
    w.model.enqueue(toolCalls({ name: 'files__read_text_file', arguments: { path: 'notes.txt' } }), (request) => {
      readInSecond = String(request.messages.at(-1)!.content);
      return finalAnswer('There is no note here.');
    });
    await ask(w, second.generalId, 'what is our secret?');
    expect(readInSecond).toMatch(/ENOENT|no such file/);
    expect(readInSecond).not.toContain('secret');

    let readInFirst = '';
    w.model.enqueue(toolCalls({ name: 'files__read_text_file', arguments: { path: 'notes.txt' } }), (request) => {
      readInFirst = String(request.messages.at(-1)!.content);
      return finalAnswer('Found it.');
    });
    await ask(w, w.discord.channels.general, 'what is our secret?');
    expect(readInFirst).toBe('the first server’s secret');

    const firstGuild = w.discord.guildId;
    expect(readFileSync(join(root, 'files', `server-${firstGuild}`, 'notes.txt'), 'utf8')).toBe(
      'the first server’s secret',
    );
    expect(existsSync(join(root, 'files', `server-${second.guildId}`, 'notes.txt'))).toBe(false);
  });

  it('two Discord servers with scope: server on server-memory do not see each other’s graph', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mcp-scopes-'));
    const memory = memoryServerConfig({ MEMORY_FILE_PATH: '${MCP_SCOPE_DIR}/memory.jsonl' });
    const servers = await serversOf(
      { memory: { command: memory.command, args: memory.args, env: memory.env, scope: 'server', confirm: 'never' } },
      root,
    );
    const w = (world = await startBotWorld({}, {}, {}, { toolServers: servers.connections }));
    const second = w.discord.addGuild('Second Server');
    await w.restart();

    const entity = { name: 'Harbour plan', entityType: 'plan', observations: ['the first server’s secret route'] };
    w.model.enqueue(
      toolCalls({ name: 'memory__create_entities', arguments: { entities: [entity] } }),
      finalAnswer('Remembered.', ['memory__create_entities']),
    );
    await ask(w, w.discord.channels.general, 'remember our plan');

    const graphIn = async (channelId: string) => {
      let graph = '';
      w.model.enqueue(toolCalls({ name: 'memory__read_graph', arguments: {} }), (request) => {
        graph = String(request.messages.at(-1)!.content);
        return finalAnswer('Read.');
      });
      await ask(w, channelId, 'what do you remember?');
      return graph;
    };
    expect(await graphIn(second.generalId)).not.toContain('secret route');
    expect(await graphIn(w.discord.channels.general)).toContain('the first server’s secret route');
    expect(readFileSync(join(root, 'memory', `server-${w.discord.guildId}`, 'memory.jsonl'), 'utf8')).toContain(
      'Harbour plan',
    );
  });
});
