/**
 * MCP_CONFIG as other clients write it: VS Code's `.vscode/mcp.json` (`servers`, with `type`, and
 * `inputs` it prompts for), and the entries' fields the bot reads itself (`scope`, `confirm`).
 */
import { describe, expect, it } from 'vitest';
import { parseMcpConfig } from '../../src/mcp/mcp-config.ts';

const parse = (file: unknown, environment: Record<string, string> = {}) =>
  parseMcpConfig(JSON.stringify(file), environment);

describe('MCP_CONFIG in VS Code’s format', () => {
  it('reads "servers" as "mcpServers", with the type VS Code writes for each', () => {
    const parsed = parse(
      {
        servers: {
          files: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] },
          search: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
        },
      },
      { TOKEN: 'sk-1' },
    );
    expect(parsed).toEqual({
      ok: true,
      secrets: ['sk-1'],
      servers: [
        {
          name: 'files',
          transport: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '.'],
          env: {},
          moderatorOnly: false,
        },
        {
          name: 'search',
          transport: 'http',
          sse: false,
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: 'Bearer sk-1' },
          moderatorOnly: false,
        },
      ],
    });
  });

  it('refuses the values VS Code prompts for ("inputs", ${input:…}), saying what to write instead', () => {
    const parsed = parse({
      inputs: [{ type: 'promptString', id: 'token', description: 'API token', password: true }],
      servers: { github: { command: 'gh-mcp', env: { TOKEN: '${input:token}' } } },
    });
    const instead =
      "VS Code asks for such values when it starts a server; the bot runs unattended: put the value in the environment or .env and write ${NAME} in the server's env or headers";
    expect(parsed).toEqual({
      ok: false,
      problems: [`"inputs" is not supported: ${instead}`, `server "github": \${input:…} is not supported: ${instead}`],
    });
  });

  it('refuses a file with both "servers" and "mcpServers", or neither', () => {
    const problem =
      'must be an object with "mcpServers" (or "servers", as VS Code writes it; not both): { "name": { "command": … } or { "url": … } }';
    expect(parse({ servers: {}, mcpServers: {} })).toEqual({ ok: false, problems: [problem] });
    expect(parse({ inputs: [] })).toEqual({ ok: false, problems: [problem] });
  });
});

describe('the fields MCP_CONFIG’s entries hold for the bot', () => {
  it('scope and confirm: read when given, left out when they say what the bot does anyway', () => {
    const parsed = parse({
      mcpServers: {
        memory: { command: 'm', scope: 'server', idleMinutes: 5, confirmTools: { read_graph: 'never' } },
        plain: { command: 'p', scope: 'global' },
      },
    });
    expect(
      parsed.ok && parsed.servers.map(({ name, scoping, confirmTools }) => ({ name, scoping, confirmTools })),
    ).toEqual([
      {
        name: 'memory',
        scoping: { scope: 'server', maxSessions: 20, idleMinutes: 5 },
        confirmTools: { read_graph: 'never' },
      },
      { name: 'plain', scoping: undefined, confirmTools: undefined },
    ]);
    expect(parse({ mcpServers: { bad: { command: 'b', scope: 'guild', confirm: 'sometimes' } } })).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^server "bad": scope: /), expect.stringMatching(/^server "bad": confirm: /)],
    });
  });
});

describe('${NAME:-default} in env and headers, as Claude Code writes it', () => {
  const file = {
    mcpServers: {
      files: { command: 'files-mcp', env: { ROOT: '${FILES_ROOT:-/srv/files}', TOKEN: '${FILES_TOKEN:-}' } },
      search: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${SEARCH_TOKEN:-none}' } },
    },
  };

  it('is the variable when it is set and not empty, else the default as written', () => {
    const unset = parse(file, { FILES_ROOT: '  ' });
    expect(unset).toMatchObject({
      ok: true,
      servers: [
        { name: 'files', env: { ROOT: '/srv/files', TOKEN: '' } },
        { name: 'search', headers: { Authorization: 'Bearer none' } },
      ],
    });
    const set = parse(file, { FILES_ROOT: '/data', FILES_TOKEN: 'files-token-123', SEARCH_TOKEN: 'search-token-456' });
    expect(set).toMatchObject({
      ok: true,
      servers: [
        { env: { ROOT: '/data', TOKEN: 'files-token-123' } },
        { headers: { Authorization: 'Bearer search-token-456' } },
      ],
    });
    // What was read is a secret to mask, as a plain ${NAME}'s value is.
    expect(set.ok && set.secrets).toEqual(expect.arrayContaining(['files-token-123', 'search-token-456']));
  });

  it('never reaches a server as literal text: another ${…} form is refused with its field named', () => {
    const parsed = parse({ mcpServers: { files: { command: 'files-mcp', env: { ROOT: '${FILES_ROOT:/srv}' } } } });
    expect(parsed).toEqual({
      ok: false,
      problems: [
        'server "files": env.ROOT: ${FILES_ROOT:/srv} is not a form the bot reads: write ${NAME} or ${NAME:-default}',
      ],
    });
    // Outside env and headers, no variable is read: a default does not change that.
    expect(parse({ mcpServers: { files: { command: '${BIN:-files-mcp}' } } })).toMatchObject({ ok: false });
  });
});
