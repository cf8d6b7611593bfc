/**
 * `npm run doctor` with MCP_CONFIG, as an operator runs it (the real script, in a process of its
 * own): after the model server's checkup, each MCP server is started, its tools listed, and what
 * went wrong said with the server's own words (its stderr); a file the bot would refuse exits 1.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from '../support/fake-model.ts';
import { testServerConfig } from '../support/mcp-test-server.ts';
import { everythingServerConfig, filesystemServerConfig } from '../support/mcp-reference-servers.ts';
import { followInstructions } from '../support/model-servers/brain.ts';
import * as quirks from '../support/model-servers/quirks.ts';
import { runScript } from '../support/run-process.ts';

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The doctor against a model server that honours everything, with `mcpServers` as MCP_CONFIG. */
async function doctorWith(mcpServers: Record<string, unknown>) {
  server = await startFakeModelServer(quirks.compliant);
  server.otherwise(followInstructions);
  const cwd = mkdtempSync(join(tmpdir(), 'doctor-mcp-'));
  writeFileSync(join(cwd, 'mcp.json'), JSON.stringify({ mcpServers }));
  return runScript('src/doctor.ts', {
    cwd,
    env: {
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_MODEL: 'test-model',
      DATABASE_PATH: join(cwd, 'bot.sqlite'),
      MCP_CONFIG: 'mcp.json',
      MCP_TOKEN: 'sk-mcp-secret-0123456789',
    },
  });
}

/** A server's entry as MCP_CONFIG holds it: a test config without the fields the bot adds. */
const entry = (config: { command: string; args: string[] }, extra: Record<string, unknown> = {}) => ({
  command: config.command,
  args: config.args,
  ...extra,
});

describe('npm run doctor with MCP_CONFIG', () => {
  it('starts each server and lists its tools, says what it left out, and why a server is down, in its stderr’s words', async () => {
    const missing = join(tmpdir(), 'doctor-mcp-missing-folder');
    const run = await doctorWith({
      everything: entry(everythingServerConfig()),
      test: entry(testServerConfig('test')),
      broken: entry(filesystemServerConfig([missing]), { env: { TOKEN: '${MCP_TOKEN}' } }),
    });

    expect(run.code).toBe(0);
    const section = run.stdout.slice(run.stdout.indexOf('MCP servers (MCP_CONFIG "mcp.json"):'));
    // The test server's tools, with test__read_resource (it declares resources).
    expect(section).toMatch(/^ {2}ok {3}test: 17 tools, 1 of which wait for the asker's Confirm in Discord$/m);
    // Every tool of server-everything says it is harmless (readOnlyHint or destructiveHint: false). Its
    // elicitation tools are offered because the bot declares the capability; everything__read_resource
    // because it declares resources.
    expect(section).toMatch(/^ {2}ok {3}everything: 15 tools$/m);
    expect(section).toContain(
      '       left out: simulate-research-query (it runs only as a task (execution.taskSupport "required"), and the bot does not run tasks yet)',
    );
    expect(section).toContain(
      `  FAIL broken: it could not be started (its stderr ended with: Warning: Cannot access directory ${missing}, skipping | Error: None of the specified directories are accessible): MCP error -32000: Connection closed (the bot starts without it, and retries it)`,
    );
    expect(run.stdout).not.toContain('sk-mcp-secret');
  }, 60_000);

  it('a file the bot would refuse: every problem named, and exit 1', async () => {
    const run = await doctorWith({ bad: { command: 'x', scope: 'guild' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('MCP servers (MCP_CONFIG "mcp.json"): the bot does not start with this file:');
    expect(run.stdout).toMatch(/ {2}FAIL server "bad": scope: /);
  }, 60_000);
});
