import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/settings/config.ts';
import { readDoctorSettings } from '../../src/doctor/doctor-settings.ts';

const files: Record<string, string> = {
  'models.yaml': `
# Comments are welcome: operators write this file by hand.
default: strong
models:
  - name: fast
    description: Quick and cheap, for chat
    provider: groq
    base_url: https://api.groq.com/openai/v1
    api_key: \${GROQ_API_KEY}
    model: llama-3.1-8b-instant
    price: { input: 0.05, output: 0.08, cached_input: 0.01 }
  - name: strong
    base_url: https://api.openai.com/v1
    api_key: \${OPENAI_API_KEY}
    model: gpt-4.1
    vision: true
    context_tokens: 1047576
  - name: local
    provider: ollama
    base_url: http://127.0.0.1:11434/v1
    model: qwen3:8b
`,
  'broken.yaml': `
models:
  - name: fast
    api_key: \${MISSING_KEY}
    model: gpt-4.1-mini
  - name: odd
    provider: acme
    base_url: http://127.0.0.1:1/v1
    model: m
  - name: Odd
    base_url: http://127.0.0.1:1/v1
    model: m2
  - name: leaky
    base_url: http://127.0.0.1:1/v1
    api_key: sk-live-123
    model: m3
`,
  'mcp.json': JSON.stringify({
    mcpServers: {
      github: { command: 'npx', args: ['server-github'], env: { GITHUB_TOKEN: '${GH_TOKEN}', LITERAL: '$${KEEP}' } },
      search: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${SEARCH_TOKEN}' } },
    },
  }),
};
const readText = (path: string) => {
  const text = files[path];
  if (text === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
  return text;
};

describe('MODELS_FILE', () => {
  it('reads every model with its key from the variable it names; the default is the one named', () => {
    const result = parseConfig(
      {
        MODELS_FILE: 'models.yaml',
        GROQ_API_KEY: 'gsk-1',
        OPENAI_API_KEY: 'sk-1',
        OPENAI_TEMPERATURE: '0.5',
      },
      null,
      { readText },
    );
    if (!result.ok) throw new Error(result.problems.join('\n'));
    const { models } = result.config;
    expect(models.defaultName).toBe('strong');
    expect(models.models.map((model) => [model.name, model.client.apiKey, model.client.baseURL])).toEqual([
      ['fast', 'gsk-1', 'https://api.groq.com/openai/v1'],
      ['strong', 'sk-1', 'https://api.openai.com/v1'],
      ['local', null, 'http://127.0.0.1:11434/v1'],
    ]);
    expect(models.models[0]).toMatchObject({
      description: 'Quick and cheap, for chat',
      price: { input: 0.05, output: 0.08, cachedInput: 0.01 },
      client: { provider: 'groq', model: 'llama-3.1-8b-instant', temperature: 0.5 },
    });
    expect(models.models[1]).toMatchObject({ vision: true, contextTokens: 1047576, price: null });
    // The default model's client is what the terminal chat and the doctor use.
    expect(result.config.model).toEqual(models.models[1]!.client);
  });

  it('reports every problem of the file at once, with the other settings, and never a key', () => {
    const result = parseConfig({ MODELS_FILE: 'broken.yaml', MCP_CONFIG: 'mcp.json', MAX_STEPS: 'lots' }, null, {
      readText,
    });
    expect(result.ok ? [] : result.problems).toEqual([
      'MAX_STEPS must be a whole number from 1 to 50 (it is "lots")',
      'MCP_CONFIG "mcp.json": server "github": env.GITHUB_TOKEN: ${GH_TOKEN} is not set (in the environment or .env)',
      'MCP_CONFIG "mcp.json": server "search": headers.Authorization: ${SEARCH_TOKEN} is not set (in the environment or .env)',
      'MODELS_FILE "broken.yaml": model "fast": api_key: ${MISSING_KEY} is not set (in the environment or .env)',
      'MODELS_FILE "broken.yaml": model "odd": provider must be auto, openai, azure, groq, openrouter, gemini, mistral, deepseek, ollama, llamacpp, vllm, lmstudio or generic',
      'MODELS_FILE "broken.yaml": model "Odd": another model has the same name (names are what moderators choose)',
      'MODELS_FILE "broken.yaml": model "leaky": api_key must name a variable, as ${GROQ_API_KEY}, not hold the key itself',
    ]);
    expect(JSON.stringify(result)).not.toContain('sk-live-123');
  });

  it('needs no OPENAI_API_KEY beside it, and says what is wrong with a file that is not one', () => {
    expect(parseConfig({ MODELS_FILE: 'gone.yaml' }, null, { readText })).toEqual({
      ok: false,
      problems: ['MODELS_FILE cannot be read (ENOENT): "gone.yaml"'],
    });
    files['empty.yaml'] = 'models: []\n';
    files['bad-default.yaml'] =
      'default: huge\nmodels:\n  - { name: small, base_url: "http://127.0.0.1:1/v1", model: s }\n';
    expect(parseConfig({ MODELS_FILE: 'empty.yaml' }, null, { readText })).toEqual({
      ok: false,
      problems: [
        'MODELS_FILE "empty.yaml": must hold "models:", a list of models (name, base_url, model, …), and may name the "default:" one',
      ],
    });
    expect(parseConfig({ MODELS_FILE: 'bad-default.yaml' }, null, { readText })).toEqual({
      ok: false,
      problems: ['MODELS_FILE "bad-default.yaml": default: "huge" is not one of the models listed'],
    });
  });
});

describe('${VAR} in MCP_CONFIG', () => {
  it("fills a server's env and headers from the environment; $${…} stays literal", () => {
    const result = parseConfig(
      { OPENAI_API_KEY: 'k', MCP_CONFIG: 'mcp.json', GH_TOKEN: 'ghp-1', SEARCH_TOKEN: 'st-2' },
      null,
      { readText },
    );
    if (!result.ok) throw new Error(result.problems.join('\n'));
    expect(result.config.mcpServers).toMatchObject([
      { name: 'github', env: { GITHUB_TOKEN: 'ghp-1', LITERAL: '${KEEP}' } },
      { name: 'search', headers: { Authorization: 'Bearer st-2' } },
    ]);
  });
});

describe('variables only where a secret belongs (issue 27)', () => {
  const token = 'MTAw.discord-token-secret-part-0123456789';
  files['leaky-fields.yaml'] = `
models:
  - name: sneaky
    description: "\${DISCORD_TOKEN}"
    base_url: "http://127.0.0.1:1/v1?t=\${DISCORD_TOKEN}"
    model: "m-\${DISCORD_TOKEN}"
  - name: other
    description: "costs \${PRICE:-free}, literally $\${NOT_READ}"
    base_url: http://127.0.0.1:1/v1
    model: "\${MODEL_NAME}"
  - name: tokenkey
    base_url: http://127.0.0.1:1/v1
    api_key: \${DISCORD_TOKEN}
    model: m
  - name: aliased
    base_url: http://127.0.0.1:1/v1
    api_key: \${ALIAS}
    model: m
  - name: userinfo
    base_url: http://bot:hunter2-password@127.0.0.1:1/v1
    model: m
`;
  files['leaky-mcp.json'] = JSON.stringify({
    mcpServers: {
      files: {
        command: '${DISCORD_TOKEN}',
        args: ['--token', '${GH_TOKEN}', '$${LITERAL}'],
        cwd: '/srv/${GH_TOKEN}',
        env: { TOKEN: '${DISCORD_TOKEN}', GOOD: '${GH_TOKEN}' },
      },
      search: { url: 'https://mcp.example.com/mcp?k=${GH_TOKEN}', headers: { Authorization: 'Bearer ${ALIAS}' } },
      basic: { url: 'https://user:hunter2-password@mcp.example.com/mcp' },
    },
  });

  it('refuses ${…} outside api_key, DISCORD_TOKEN anywhere and URLs with credentials, naming each field, with the other problems', () => {
    const result = parseConfig(
      {
        MODELS_FILE: 'leaky-fields.yaml',
        MCP_CONFIG: 'leaky-mcp.json',
        DISCORD_TOKEN: token,
        ALIAS: token,
        GH_TOKEN: 'ghp-1',
        MODEL_NAME: 'x',
        MAX_STEPS: 'lots',
      },
      null,
      { readText, purpose: 'bot' },
    );
    const here = 'cannot be used here: variables are read only in';
    const literal = '(this field is shown or sent as it is; $${…} writes a literal ${…})';
    const tokenNever =
      "the Discord bot's token, which is never sent to another server: name the variable of this server's own key";
    expect(result.ok ? [] : result.problems).toEqual([
      'MAX_STEPS must be a whole number from 1 to 50 (it is "lots")',
      `MCP_CONFIG "leaky-mcp.json": server "files": command: \${DISCORD_TOKEN} ${here} a server's env and headers ${literal}`,
      `MCP_CONFIG "leaky-mcp.json": server "files": args.1: \${GH_TOKEN} ${here} a server's env and headers ${literal}`,
      `MCP_CONFIG "leaky-mcp.json": server "files": cwd: \${GH_TOKEN} ${here} a server's env and headers ${literal}`,
      `MCP_CONFIG "leaky-mcp.json": server "files": env.TOKEN: \${DISCORD_TOKEN} is ${tokenNever}`,
      `MCP_CONFIG "leaky-mcp.json": server "search": url: \${GH_TOKEN} ${here} a server's env and headers ${literal}`,
      `MCP_CONFIG "leaky-mcp.json": server "search": headers.Authorization: \${ALIAS} holds ${tokenNever}`,
      'MCP_CONFIG "leaky-mcp.json": server "basic": url: url must not hold a user name or password (give the key as a key, not in the URL): a token goes in headers',
      `MODELS_FILE "leaky-fields.yaml": model "sneaky": description: \${DISCORD_TOKEN} ${here} api_key ${literal}`,
      `MODELS_FILE "leaky-fields.yaml": model "sneaky": base_url: \${DISCORD_TOKEN} ${here} api_key ${literal}`,
      `MODELS_FILE "leaky-fields.yaml": model "sneaky": model: \${DISCORD_TOKEN} ${here} api_key ${literal}`,
      `MODELS_FILE "leaky-fields.yaml": model "other": description: \${PRICE:-free} ${here} api_key ${literal}`,
      `MODELS_FILE "leaky-fields.yaml": model "other": model: \${MODEL_NAME} ${here} api_key ${literal}`,
      `MODELS_FILE "leaky-fields.yaml": model "tokenkey": api_key: \${DISCORD_TOKEN} is ${tokenNever}`,
      `MODELS_FILE "leaky-fields.yaml": model "aliased": api_key: \${ALIAS} holds ${tokenNever}`,
      'MODELS_FILE "leaky-fields.yaml": model "userinfo": base_url must not hold a user name or password (give the key as a key, not in the URL): the key goes in api_key',
    ]);
    const said = JSON.stringify(result);
    for (const secret of [token, 'ghp-1', 'hunter2-password']) expect(said).not.toContain(secret);
  });

  it('never echoes an OPENAI_BASE_URL that holds a password', () => {
    const result = parseConfig({ OPENAI_BASE_URL: 'http://bot:hunter2-password@127.0.0.1:1/v1' }, null, { readText });
    expect(result).toEqual({
      ok: false,
      problems: ['OPENAI_BASE_URL must not hold a user name or password (give the key as a key, not in the URL)'],
    });
  });

  it('hands the logger every secret the settings hold, and nothing else', () => {
    const result = parseConfig(
      { MODELS_FILE: 'models.yaml', MCP_CONFIG: 'mcp.json', GROQ_API_KEY: 'gsk-1', OPENAI_API_KEY: 'sk-1' },
      null,
      { readText: (path) => (path === 'mcp.json' ? files['mcp.json']! : readText(path)) },
    );
    expect(result.ok ? [] : result.problems).toEqual([
      'MCP_CONFIG "mcp.json": server "github": env.GITHUB_TOKEN: ${GH_TOKEN} is not set (in the environment or .env)',
      'MCP_CONFIG "mcp.json": server "search": headers.Authorization: ${SEARCH_TOKEN} is not set (in the environment or .env)',
    ]);
    const ok = parseConfig(
      {
        MODELS_FILE: 'models.yaml',
        MCP_CONFIG: 'mcp.json',
        GROQ_API_KEY: 'gsk-1',
        OPENAI_API_KEY: 'sk-1',
        GH_TOKEN: 'ghp-1',
        SEARCH_TOKEN: 'st-2',
        DISCORD_TOKEN: 'dt-3',
      },
      null,
      { readText },
    );
    if (!ok.ok) throw new Error(ok.problems.join('\n'));
    expect(ok.config.secrets.toSorted()).toEqual(['dt-3', 'ghp-1', 'gsk-1', 'sk-1', 'sk-1', 'st-2']);
  });
});

describe('npm run doctor with MODELS_FILE', () => {
  it("checks the file's default model, or the one --model names; says which there are otherwise", () => {
    const environment = {
      MODELS_FILE: 'models.yaml',
      GROQ_API_KEY: 'gsk-1',
      OPENAI_API_KEY: 'sk-1',
      // A broken MCP_CONFIG must not keep the doctor from checking a model.
      MCP_CONFIG: 'gone.json',
    };
    const checked = (modelName: string | null) => {
      const loaded = readDoctorSettings(environment, null, { modelName, readText });
      return loaded.ok ? loaded.settings.model.model : loaded.problems;
    };
    expect(checked(null)).toBe('gpt-4.1');
    expect(checked('local')).toBe('qwen3:8b');
    expect(checked('huge')).toEqual([
      'MODELS_FILE "models.yaml": has no model named "huge": it has fast, strong, local',
    ]);
    expect(readDoctorSettings({ OPENAI_API_KEY: 'k' }, null, { modelName: 'fast', readText })).toEqual({
      ok: false,
      problems: ['--model names a model of MODELS_FILE, which is not set'],
    });
  });
});
