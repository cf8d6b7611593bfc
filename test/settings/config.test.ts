import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatProblems, parseConfig } from '../../src/settings/config.ts';
import { settingNames, settingsSchema } from '../../src/settings/settings-schema.ts';
import { rangeOf } from '../../src/settings/setting-fields.ts';
import { openTelemetryVariables } from '../../src/telemetry/telemetry-settings.ts';
import { projectRoot } from '../support/run-process.ts';

describe('settings', () => {
  it('uses the documented defaults when only the key is set', () => {
    const result = parseConfig({ OPENAI_API_KEY: 'sk-1' }, null);
    expect(result).toEqual({
      ok: true,
      config: {
        shards: { count: 1, ids: null },
        // Off unless the operator turns it on: nothing is checked, nothing asked.
        contentCheck: { kind: 'off' },
        model: {
          apiKey: 'sk-1',
          baseURL: 'https://api.openai.com/v1',
          model: 'gpt-4.1-mini',
          temperature: 0,
          maxRetries: 2,
          timeoutSeconds: 60,
          maxRetryWaitSeconds: 30,
          provider: 'auto',
          toolProtocol: 'auto',
        },
        agent: {
          maxSteps: 10,
          maxToolCallsPerTurn: 8,
          runTimeoutMs: 120_000,
          toolTimeoutMs: 30_000,
          secrets: ['sk-1'],
        },
        databasePath: './data/bot.sqlite',
        memory: { tokenBudget: 8000, messageTokenCap: 4000, images: 4, summaries: true },
        images: { vision: 'auto', maxBytes: 5 * 1024 * 1024 },
        retention: { messageDays: null, stepLogDays: null, imageDays: null },
        systemPrompt: null,
        logLevel: 'info',
        mcpServers: [],
        webSearch: null,
        // No embedding model: the knowledge is searched by keywords alone.
        knowledge: { embeddings: null, maxDocumentCharacters: 2_000_000, maxServerCharacters: 20_000_000 },
        // For the logger to mask wherever it turns up.
        secrets: ['sk-1'],
        // Without MODELS_FILE, the OPENAI_* settings are the one model, the default.
        models: {
          defaultName: 'gpt-4.1-mini',
          models: [
            {
              name: 'gpt-4.1-mini',
              description: '',
              vision: null,
              contextTokens: null,
              price: null,
              client: {
                apiKey: 'sk-1',
                baseURL: 'https://api.openai.com/v1',
                model: 'gpt-4.1-mini',
                temperature: 0,
                maxRetries: 2,
                timeoutSeconds: 60,
                maxRetryWaitSeconds: 30,
                provider: 'auto',
                toolProtocol: 'auto',
              },
            },
          ],
        },
        discord: {
          token: null,
          apiUrl: 'https://discord.com/api',
          cdnOrigin: null,
          allowedGuildIds: [],
          allowedChannelIds: [],
          toolPosts: 'all',
          streamAnswers: true,
          maxConcurrentRuns: 4,
          attachmentMaxBytes: 16_384,
          commandGuildId: null,
          moderatorRoleIds: [],
          userMessagesPerMinute: 10,
          summarizeMaxMessages: 500,
          summarizeTimeoutMs: 600_000,
          dailyTokenBudget: 1_000_000,
          allowDms: false,
          memberMemoryInDms: false,
          dmDailyTokens: 200_000,
          totalDailyTokens: 10_000_000,
          userInstall: false,
          userInstallDailyTokens: 200_000,
          toolConfirmMs: 60_000,
        },
      },
    });
  });

  it('needs DISCORD_TOKEN for the bot only, and reads id allow-lists', () => {
    expect(parseConfig({ OPENAI_API_KEY: 'k' }, null, { purpose: 'bot' })).toEqual({
      ok: false,
      problems: [
        'DISCORD_TOKEN is required to connect to Discord: copy the bot token from the Developer Portal (your application → Bot → Reset Token)',
      ],
    });
    const result = parseConfig(
      {
        OPENAI_API_KEY: 'k',
        DISCORD_TOKEN: 't',
        ALLOWED_GUILD_IDS: '100000000000000001, 100000000000000002',
        DISCORD_API_URL: 'http://127.0.0.1:9/api/',
      },
      null,
      { purpose: 'bot' },
    );
    expect(result.ok && result.config.discord).toMatchObject({
      token: 't',
      apiUrl: 'http://127.0.0.1:9/api',
      allowedGuildIds: ['100000000000000001', '100000000000000002'],
    });
    const bad = parseConfig(
      { OPENAI_API_KEY: 'k', ALLOWED_CHANNEL_IDS: 'general', DISCORD_API_URL: 'https://discord.com/api/v10' },
      null,
    );
    expect(bad.ok ? [] : bad.problems).toEqual([
      'DISCORD_API_URL must not end in a version such as /v10 (the client adds it): use https://discord.com/api (it is "https://discord.com/api/v10")',
      'ALLOWED_CHANNEL_IDS must list Discord ids (17 to 20 digits), separated by commas (it is "general")',
    ]);
  });

  it('reads DISCORD_CDN_URL as an origin, and refuses another scheme or a path', () => {
    const read = (value: string) => parseConfig({ OPENAI_API_KEY: 'k', DISCORD_CDN_URL: value }, null);
    const good = read('http://127.0.0.1:8080/');
    expect(good.ok && good.config.discord.cdnOrigin).toBe('http://127.0.0.1:8080');
    expect(read('ftp://cdn.example.com')).toEqual({
      ok: false,
      problems: ['DISCORD_CDN_URL must be an http:// or https:// URL (it is "ftp://cdn.example.com")'],
    });
    expect(read('https://cdn.example.com/attachments')).toEqual({
      ok: false,
      problems: [
        'DISCORD_CDN_URL must be an origin alone, with no path, such as http://127.0.0.1:8080 (it is "https://cdn.example.com/attachments")',
      ],
    });
  });

  it('needs no API key for a local server', () => {
    const result = parseConfig({ OPENAI_BASE_URL: 'http://localhost:11434/v1', OPENAI_MODEL: 'llama3.1' }, null);
    expect(result.ok && result.config.model).toMatchObject({ apiKey: null, model: 'llama3.1' });
  });

  it('treats blank values, as copied from .env.example, as unset', () => {
    const result = parseConfig({}, 'OPENAI_API_KEY=sk-1\nOPENAI_MODEL=\nMAX_STEPS=\n');
    expect(result.ok && result.config.model.model).toBe('gpt-4.1-mini');
    expect(result.ok && result.config.agent.maxSteps).toBe(10);
  });

  it('lets the environment win over .env', () => {
    const result = parseConfig(
      { OPENAI_API_KEY: 'sk-env', MAX_STEPS: '4' },
      'OPENAI_API_KEY=sk-file\nMAX_STEPS=7\nOPENAI_MODEL=file-model\n',
    );
    expect(result.ok && [result.config.model.apiKey, result.config.agent.maxSteps, result.config.model.model]).toEqual([
      'sk-env',
      4,
      'file-model',
    ]);
  });

  it('does not let a blank variable in the environment hide a value in .env', () => {
    const result = parseConfig(
      { OPENAI_API_KEY: '', OPENAI_MODEL: '  ' },
      'OPENAI_API_KEY=sk-file\nOPENAI_MODEL=file-model\n',
    );
    expect(result.ok && [result.config.model.apiKey, result.config.model.model]).toEqual(['sk-file', 'file-model']);
  });

  it('reports every problem at once, and never echoes the key or the prompt', () => {
    const result = parseConfig(
      {
        OPENAI_API_KEY: '',
        MAX_STEPS: 'ten',
        LOG_LEVEL: 'loud',
        SYSTEM_PROMPT: 'secret persona',
        SYSTEM_PROMPT_FILE: 'p.txt',
      },
      null,
    );
    expect(result.ok).toBe(false);
    const message = formatProblems(result.ok ? [] : result.problems);
    expect(message).toBe(
      [
        'Cannot start: the settings have 5 problems (read from the environment, then .env):',
        '  - MAX_STEPS must be a whole number from 1 to 50 (it is "ten")',
        '  - LOG_LEVEL must be fatal, error, warn, info, debug, trace or silent (it is "loud")',
        "  - OPENAI_API_KEY is required for OpenAI's API (the default OPENAI_BASE_URL): set it, or point OPENAI_BASE_URL at a local server that needs no key",
        '  - SYSTEM_PROMPT_FILE cannot be set together with SYSTEM_PROMPT: keep one',
        // Read all the same, so that a missing file is not found only once the other is fixed.
        '  - SYSTEM_PROMPT_FILE cannot be read (ENOENT): "p.txt"',
        'Fix them in .env (copy .env.example to start) or in the environment; docs/settings.md lists every setting.',
      ].join('\n'),
    );
    expect(message).not.toContain('secret persona');
  });

  it('reads CONTENT_CHECK: moderations on the default server with its key, or elsewhere without it; guard names a model of MODELS_FILE', () => {
    const config = (env: Record<string, string>) => {
      const result = parseConfig({ OPENAI_API_KEY: 'sk-1', ...env }, null);
      return result.ok ? result.config.contentCheck : result.problems;
    };
    expect(config({ CONTENT_CHECK: 'moderations' })).toEqual({
      kind: 'moderations',
      onError: 'refuse',
      server: {
        baseURL: 'https://api.openai.com/v1',
        apiKey: 'sk-1',
        model: 'omni-moderation-latest',
        // CONTENT_CHECK_TIMEOUT_SECONDS, and one retry at most: a question waits on its check.
        timeoutSeconds: 10,
        maxRetries: 1,
      },
    });
    expect(config({ CONTENT_CHECK: 'moderations', CONTENT_CHECK_TIMEOUT_SECONDS: '3' })).toMatchObject({
      server: { timeoutSeconds: 3 },
    });
    // The default model's key never goes to another server.
    expect(
      config({
        CONTENT_CHECK: 'moderations',
        CONTENT_CHECK_BASE_URL: 'http://127.0.0.1:9000/v1/',
        CONTENT_CHECK_MODEL: 'text-moderation-latest',
        CONTENT_CHECK_ON_ERROR: 'allow',
      }),
    ).toMatchObject({
      onError: 'allow',
      server: { baseURL: 'http://127.0.0.1:9000/v1', apiKey: null, model: 'text-moderation-latest' },
    });
    expect(config({ CONTENT_CHECK: 'guard' })).toEqual([
      'CONTENT_CHECK=guard needs CONTENT_CHECK_MODEL: the name of the guard model in MODELS_FILE (e.g. llama-guard3)',
    ]);
    expect(config({ CONTENT_CHECK: 'guard', CONTENT_CHECK_MODEL: 'llama-guard3' })).toEqual([
      'CONTENT_CHECK_MODEL must name a model of MODELS_FILE for CONTENT_CHECK=guard (it is "llama-guard3")',
    ]);
    expect(config({ CONTENT_CHECK: 'sometimes', CONTENT_CHECK_BASE_URL: 'ftp://x' })).toEqual([
      'CONTENT_CHECK must be off, moderations or guard (it is "sometimes")',
      'CONTENT_CHECK_BASE_URL must be an http:// or https:// URL (it is "ftp://x")',
    ]);
  });

  it('reads SYSTEM_PROMPT_FILE, and names a file it cannot read', () => {
    const files: Record<string, string> = { 'persona.md': '  You are Rex.\n' };
    const read = (path: string) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
      return text;
    };
    const ok = parseConfig({ OPENAI_API_KEY: 'k', SYSTEM_PROMPT_FILE: 'persona.md' }, null, { readText: read });
    expect(ok.ok && ok.config.systemPrompt).toBe('You are Rex.');
    const missing = parseConfig({ OPENAI_API_KEY: 'k', SYSTEM_PROMPT_FILE: 'gone.md' }, null, { readText: read });
    expect(missing).toEqual({ ok: false, problems: ['SYSTEM_PROMPT_FILE cannot be read (ENOENT): "gone.md"'] });
  });

  it('reads MCP_CONFIG: stdio and HTTP servers, and every problem in the file, named', () => {
    const files: Record<string, string> = {
      'mcp.json': JSON.stringify({
        mcpServers: {
          files: { command: 'npx', args: ['-y', 'server-files'], env: { ROOT: '/srv' } },
          Search: { url: 'https://mcp.example.com/mcp', moderatorOnly: true },
        },
      }),
      'bad.json': JSON.stringify({
        mcpServers: {
          'has space': { command: 'x' },
          a: { command: '' },
          b: { url: 'ftp://x' },
          c: { command: 'x', enviroment: {} },
          A: { command: 'x' },
        },
      }),
      'broken.json': '{ "mcpServers": ',
      'mismatched.json': JSON.stringify({
        mcpServers: {
          a: { type: 'http', command: 'x' },
          b: { type: 'stdio', command: 'x', url: 'https://mcp.example.com/mcp' },
          c: { type: 'websocket', url: 'https://mcp.example.com/mcp' },
        },
      }),
    };
    const read = (path: string) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
      return text;
    };
    const ok = parseConfig({ OPENAI_API_KEY: 'k', MCP_CONFIG: 'mcp.json' }, null, { readText: read });
    expect(ok.ok && ok.config.mcpServers).toEqual([
      {
        name: 'files',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'server-files'],
        env: { ROOT: '/srv' },
        moderatorOnly: false,
      },
      {
        name: 'Search',
        transport: 'http',
        sse: false,
        url: 'https://mcp.example.com/mcp',
        headers: {},
        moderatorOnly: true,
      },
    ]);
    const bad = parseConfig({ OPENAI_API_KEY: 'k', MCP_CONFIG: 'bad.json' }, null, { readText: read });
    expect(bad.ok ? [] : bad.problems).toEqual([
      'MCP_CONFIG "bad.json": server "has space": names may use letters, digits, "-" and "_" (not "__"), at most 32 characters (they prefix its tools\' names)',
      'MCP_CONFIG "bad.json": server "a": command: command must not be empty',
      'MCP_CONFIG "bad.json": server "b": url: url must be an http:// or https:// URL',
      'MCP_CONFIG "bad.json": server "c": unknown field "enviroment"',
      'MCP_CONFIG "bad.json": server "A": another server has the same name in lower case (names become /tool subcommands)',
    ]);
    const broken = parseConfig({ OPENAI_API_KEY: 'k', MCP_CONFIG: 'broken.json' }, null, { readText: read });
    expect(broken.ok ? [] : broken.problems).toEqual([
      expect.stringMatching(/^MCP_CONFIG "broken.json": is not valid JSON \(/),
    ]);
    const mismatched = parseConfig({ OPENAI_API_KEY: 'k', MCP_CONFIG: 'mismatched.json' }, null, { readText: read });
    expect(mismatched.ok ? [] : mismatched.problems).toEqual([
      'MCP_CONFIG "mismatched.json": server "a": url: url must be an http:// or https:// URL',
      'MCP_CONFIG "mismatched.json": server "a": unknown field "command"',
      'MCP_CONFIG "mismatched.json": server "b": unknown field "url"',
      'MCP_CONFIG "mismatched.json": server "c": type: Invalid option: expected one of "http"|"streamable-http"|"sse"',
    ]);
    expect(parseConfig({ OPENAI_API_KEY: 'k', MCP_CONFIG: 'gone.json' }, null, { readText: read })).toEqual({
      ok: false,
      problems: ['MCP_CONFIG cannot be read (ENOENT): "gone.json"'],
    });
  });

  it('reads MCP_CONFIG as Claude Code, Cursor and VS Code write it: "type" read, "disabled" servers skipped', () => {
    // A .mcp.json as `claude mcp add --scope project` writes it (https://docs.anthropic.com/en/docs/claude-code/mcp).
    const file = JSON.stringify({
      mcpServers: {
        files: { type: 'stdio', command: 'npx', args: ['-y', 'server-files'], env: {} },
        search: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
        docs: { type: 'streamable-http', url: 'https://docs.example.com/mcp' },
        old: { type: 'sse', url: 'https://old.example.com/sse' },
        off: { type: 'stdio', command: 'npx', args: ['-y', 'server-off'], disabled: true },
        ON: { command: '', disabled: true },
        on: { command: 'server-on', disabled: false },
      },
    });
    const parsed = parseConfig({ OPENAI_API_KEY: 'k', MCP_CONFIG: 'mcp.json', TOKEN: 't0ken' }, null, {
      readText: () => file,
    });
    expect(parsed.ok ? parsed.config.mcpServers : parsed.problems).toEqual([
      {
        name: 'files',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'server-files'],
        env: {},
        moderatorOnly: false,
      },
      {
        name: 'search',
        transport: 'http',
        sse: false,
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer t0ken' },
        moderatorOnly: false,
      },
      {
        name: 'docs',
        transport: 'http',
        sse: false,
        url: 'https://docs.example.com/mcp',
        headers: {},
        moderatorOnly: false,
      },
      {
        name: 'old',
        transport: 'http',
        sse: true,
        url: 'https://old.example.com/sse',
        headers: {},
        moderatorOnly: false,
      },
      { name: 'on', transport: 'stdio', command: 'server-on', args: [], env: {}, moderatorOnly: false },
    ]);
  });

  it('reads SHARD_COUNT and SHARD_IDS: a number or auto, ids and ranges below the count', () => {
    const shards = (environment: Record<string, string>) => {
      const result = parseConfig({ OPENAI_API_KEY: 'sk-1', ...environment }, null);
      return result.ok ? result.config.shards : result.problems;
    };
    expect(shards({ SHARD_COUNT: 'auto' })).toEqual({ count: 'auto', ids: null });
    expect(shards({ SHARD_COUNT: '8', SHARD_IDS: '4-5, 7,4' })).toEqual({ count: 8, ids: [4, 5, 7] });
    expect(shards({ SHARD_COUNT: 'auto', SHARD_IDS: '0-3' })).toEqual({ count: 'auto', ids: [0, 1, 2, 3] });
    expect(shards({ SHARD_COUNT: '4', SHARD_IDS: '2-5' })).toEqual([
      'SHARD_IDS must name shards below SHARD_COUNT (4): shards are numbered from 0',
    ]);
    expect(shards({ SHARD_COUNT: '0' })).toEqual([expect.stringMatching(/^SHARD_COUNT must be at least 1/)]);
    expect(shards({ SHARD_COUNT: 'many' })).toEqual([
      expect.stringMatching(/^SHARD_COUNT must be auto or a whole number/),
    ]);
    expect(shards({ SHARD_IDS: '2-3' })).toEqual([
      'SHARD_IDS needs SHARD_COUNT: set SHARD_COUNT to the number of shards in all (or auto), the same on every host',
    ]);
    expect(shards({ SHARD_IDS: '0', SHARD_COUNT: '' })).toEqual([
      expect.stringMatching(/^SHARD_IDS needs SHARD_COUNT/),
    ]);
    expect(shards({ SHARD_IDS: 'one' })).toEqual([expect.stringMatching(/^SHARD_IDS must list shard ids or ranges/)]);
    expect(shards({ SHARD_IDS: '3-1' })).toEqual([expect.stringMatching(/^SHARD_IDS must name at least one shard/)]);
  });

  it("sends embeddings to the chat model's server with its key, or to EMBEDDING_BASE_URL with EMBEDDING_API_KEY alone", () => {
    const knowledgeOf = (environment: Record<string, string>) => {
      const result = parseConfig({ OPENAI_API_KEY: 'sk-chat-1', ...environment }, null);
      if (!result.ok) throw new Error(result.problems.join('; '));
      return result.config;
    };
    expect(knowledgeOf({ EMBEDDING_MODEL: 'text-embedding-3-small' }).knowledge.embeddings).toEqual({
      model: 'text-embedding-3-small',
      baseURL: 'https://api.openai.com/v1',
      apiKey: 'sk-chat-1',
      timeoutSeconds: 60,
      maxRetries: 2,
    });
    const elsewhere = knowledgeOf({
      EMBEDDING_MODEL: 'nomic-embed-text',
      EMBEDDING_BASE_URL: 'http://127.0.0.1:11434/v1',
      EMBEDDING_API_KEY: 'sk-embed-9',
      KNOWLEDGE_MAX_DOCUMENT_CHARACTERS: '5000',
    });
    expect(elsewhere.knowledge).toEqual({
      embeddings: expect.objectContaining({ baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'sk-embed-9' }),
      maxDocumentCharacters: 5000,
      maxServerCharacters: 20_000_000,
    });
    expect(elsewhere.secrets).toContain('sk-embed-9');
    const noKey = knowledgeOf({ EMBEDDING_MODEL: 'm', EMBEDDING_BASE_URL: 'http://127.0.0.1:11434/v1' });
    expect(noKey.knowledge.embeddings?.apiKey).toBeNull();
  });

  it('refuses an embedding server named without EMBEDDING_MODEL, never echoing the key', () => {
    const result = parseConfig(
      { OPENAI_API_KEY: 'sk-chat-1', EMBEDDING_BASE_URL: 'http://127.0.0.1:11434/v1', EMBEDDING_API_KEY: 'sk-embed-9' },
      null,
    );
    expect(result).toEqual({
      ok: false,
      problems: [
        'EMBEDDING_BASE_URL and EMBEDDING_API_KEY need EMBEDDING_MODEL: name the embedding model, or unset them',
      ],
    });
  });

  it('is documented: the table of docs/settings.md and .env.example list exactly the settings that exist, and the OpenTelemetry variables', () => {
    // The OTEL_* variables are read by the OpenTelemetry SDK and src/telemetry/, not by the settings' schema.
    const variables = [...settingNames, ...openTelemetryVariables].sort();
    const readme = readFileSync(`${projectRoot}docs/settings.md`, 'utf8');
    const documented = [...readme.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]!);
    expect(documented.sort()).toEqual(variables);
    const example = readFileSync(`${projectRoot}.env.example`, 'utf8');
    const listed = [...example.matchAll(/^#?\s*([A-Z_]+)=/gm)].map((match) => match[1]!);
    expect(listed.sort()).toEqual(variables);
  });

  it("is documented with each number setting's range, as the code checks it: in the table of docs/settings.md and above its line in .env.example", () => {
    const readme = readFileSync(`${projectRoot}docs/settings.md`, 'utf8');
    const example = readFileSync(`${projectRoot}.env.example`, 'utf8').split('\n');
    const ranges = settingNames.flatMap((name) => {
      const range = rangeOf(settingsSchema.shape[name]);
      return range === undefined ? [] : [{ name, range }];
    });
    expect(ranges.length).toBeGreaterThan(15);
    // The range, not the start of a longer number ("from 1 to 5" in "from 1 to 50").
    const states = (text: string, range: string) => new RegExp(`${range}(?![\\d,])`).test(text);
    const missing = ranges.flatMap(({ name, range }) => {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${name}\` |`)) ?? '';
      const line = example.findIndex((text) => text.startsWith(`${name}=`));
      const comment = example[line - 1] ?? '';
      return [
        ...(states(row, range) ? [] : [`docs/settings.md: ${name} ${range}`]),
        ...(comment.startsWith('#') && states(comment, range) ? [] : [`.env.example: ${name} ${range}`]),
      ];
    });
    expect(missing).toEqual([]);
  });
});
