import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataUrlOf, imageUrlsOf, png, pngClaiming, textOf } from './support/images.ts';
import { testServerConfig } from './support/mcp-test-server.ts';
import { openStore } from '../db/store.ts';
import { runScript, scriptArgs } from './support/run-process.ts';
import { waitUntil } from './support/wait-until.ts';
import { type ScriptedModel, apiError, finalAnswer, startScriptedModel, toolCalls } from './support/fake-model.ts';

let model: ScriptedModel;
let cwd: string;
beforeEach(async () => {
  model = await startScriptedModel();
  cwd = mkdtempSync(join(tmpdir(), 'chat-test-'));
});
afterEach(async () => {
  await model.close();
});

const chat = (stdin: string, env: Record<string, string> = {}) =>
  runScript('src/chat.ts', { cwd, stdin, env: { OPENAI_BASE_URL: model.baseURL, USER: 'ada', ...env } });

describe('npm run chat', () => {
  it('answers "what is 2+3*4?" through the calculator, printing the invocation and the answer', async () => {
    model.enqueue(toolCalls({ name: 'calculator', arguments: { expression: '2+3*4' } }), (request) => {
      const results = request.messages.filter((message) => message.role === 'tool').map((message) => message.content);
      // The scripted answer is given only if the request carries the tool message with 14.
      if (!results.includes('14')) return apiError(400, `expected the calculator's 14, got ${JSON.stringify(results)}`);
      return finalAnswer('2 + 3 × 4 = **14**', ['calculator']);
    });

    const result = await chat('what is 2+3*4?\n');

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        '  → calculator {"expression":"2+3*4"}',
        '  ← calculator: 14',
        'bot: 2 + 3 × 4 = **14**',
        '     (tools: calculator)',
        '',
      ].join('\n'),
    );
    expect(model.requests[0]!.messages[1]).toEqual({ role: 'user', content: 'ada: what is 2+3*4?' });
  });

  it('attaches images with /image PATH to the next message (4 at most), and refuses what is not one', async () => {
    const picture = png(32, 16);
    writeFileSync(join(cwd, 'pic.png'), picture);
    writeFileSync(join(cwd, 'notes.png'), 'not an image');
    writeFileSync(join(cwd, 'huge.png'), pngClaiming(65535, 65535));
    model.enqueue((request) => {
      const asked = request.messages.at(-1)!;
      expect(textOf(asked)).toBe(['ada: what is this?', ...Array(4).fill('[image: pic.png]')].join('\n'));
      expect(imageUrlsOf(asked)).toEqual(Array(4).fill(dataUrlOf('image/png', picture)));
      return finalAnswer('Grey bars.');
    });

    const lines = [
      '/image pic.png',
      '/image notes.png',
      '/image huge.png',
      '/image missing.png',
      ...Array(4).fill('/image pic.png'),
    ];
    const result = await chat(`${lines.join('\n')}\nwhat is this?\n`, { MODEL_VISION: 'on' });

    expect(result.code).toBe(0);
    const attached = '(attached pic.png, 32×16: it goes with your next message)';
    expect(result.stdout.split('\n')).toEqual([
      attached,
      '(not attached: notes.png is not a PNG, JPEG, WebP or GIF image (whatever its name or type says))',
      '(not attached: huge.png is 65,535 × 65,535 pixels, larger than 8,000 pixels a side or 40 megapixels in all (scale it down and post it again))',
      '(not attached: cannot read missing.png: ENOENT)',
      attached,
      attached,
      attached,
      '(not attached: at most 4 images go with one message)',
      'bot: Grey bars.',
      '',
    ]);
  });

  it('names an image to a model that cannot see it', async () => {
    writeFileSync(join(cwd, 'pic.png'), png(4, 4));
    model.enqueue((request) => {
      expect(request.messages.at(-1)!.content).toBe(
        'ada: and this?\n\n[image pic.png: posted, but this model cannot see images, so it is not shown]',
      );
      return finalAnswer('I cannot see images.');
    });
    const result = await chat('/image pic.png\nand this?\n', { MODEL_VISION: 'off' });
    expect(result.stdout).toContain('(this model cannot see images: pic.png will be named, not shown)');
  });

  it('uses the tools of the MCP servers in MCP_CONFIG', async () => {
    const { command, args } = testServerConfig('files');
    writeFileSync(join(cwd, 'mcp.json'), JSON.stringify({ mcpServers: { files: { command, args } } }));
    model.enqueue(
      toolCalls({ name: 'files__echo', arguments: { text: 'hi' } }),
      finalAnswer('It echoed.', ['files__echo']),
    );

    const result = await chat('echo hi\n', { MCP_CONFIG: 'mcp.json' });

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        '  → files__echo {"text":"hi"}',
        '  ← files__echo: echo: hi',
        'bot: It echoed.',
        '     (tools: files__echo)',
        '',
      ].join('\n'),
    );
    expect(model.requests[0]!.tools!.map((tool) => tool.function.name)).toContain('files__add');
  });

  it('declines a tool’s request for input (MCP elicitation), saying so on stderr: the terminal shows no forms', async () => {
    const { command, args } = testServerConfig('files');
    writeFileSync(join(cwd, 'mcp.json'), JSON.stringify({ mcpServers: { files: { command, args } } }));
    model.enqueue(toolCalls({ name: 'files__sign_up', arguments: {} }), finalAnswer('It could not ask you.'));

    const result = await chat('sign me up\n', { MCP_CONFIG: 'mcp.json' });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  ← files__sign_up: decline null');
    expect(result.stderr).toContain('MCP input request declined: nobody can be asked here (the terminal, or /tool)');
  });

  it('asks y/N at the terminal before a tool that may delete things: the next line decides', async () => {
    const { command, args } = testServerConfig('files');
    writeFileSync(join(cwd, 'mcp.json'), JSON.stringify({ mcpServers: { files: { command, args } } }));
    const notRun = (request: { messages: { role: string; content?: unknown }[] }) =>
      request.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
    model.enqueue(toolCalls({ name: 'files__delete', arguments: { what: 'a' } }), finalAnswer('Deleted a.'));
    model.enqueue(toolCalls({ name: 'files__delete', arguments: { what: 'b' } }), (request) =>
      finalAnswer(notRun(request).at(-1)!),
    );
    model.enqueue(toolCalls({ name: 'files__delete', arguments: { what: 'c' } }), (request) =>
      finalAnswer(notRun(request).at(-1)!),
    );

    const result = await chat('delete a\ny\ndelete b\nno\ndelete c\n', { MCP_CONFIG: 'mcp.json' });

    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    const asked = (what: string) => `  ? files__delete {"what":"${what}"} may change or delete things: run it? [y/N]`;
    expect(lines.slice(0, 4)).toEqual([
      '  → files__delete {"what":"a"}',
      asked('a'),
      '  ← files__delete: deleted a',
      'bot: Deleted a.',
    ]);
    expect(lines).toContain(asked('b'));
    // "no" answered the question: it was not taken for a message of its own.
    expect(model.requests.filter((request) => textOf(request.messages.at(-1)!) === 'ada: no')).toEqual([]);
    expect(result.stdout).toContain(
      'bot: Not executed: files__delete needs the confirmation of the person who asked, and ada cancelled it.',
    );
    // The input ended while the third call waited: cancelled, never run.
    expect(lines).toContain(asked('c'));
    expect(result.stdout).not.toContain('deleted c');
    expect(result.stdout).toContain(
      'bot: Not executed: files__delete needs the confirmation of the person who asked, and it was cancelled.',
    );
  });

  it('remembers the conversation from one line to the next', async () => {
    model.enqueue(finalAnswer('Nice to meet you, Ada.'), (request) => {
      expect(request.messages.slice(1).map((message) => message.content)).toEqual([
        'ada: my name is Ada',
        'Nice to meet you, Ada.',
        'ada: what is my name?',
      ]);
      return finalAnswer('Your name is Ada.');
    });

    const result = await chat('my name is Ada\n\nwhat is my name?\n');

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('bot: Your name is Ada.');
  });

  it('sums up the turns that fall out of a small window, after each answer, and opens the window with the summary', async () => {
    const isSummary = (request: { tool_choice?: unknown }) =>
      JSON.stringify(request.tool_choice).includes('write_summary');
    model.otherwise((request) => {
      if (!isSummary(request)) return finalAnswer('Noted.');
      const told = request.messages.at(-1)?.content ?? '';
      return toolCalls({
        name: 'write_summary',
        arguments: { summary: /swordfish/.test(told) ? 'The password is swordfish.' : 'Chat.' },
      });
    });
    const filler = Array.from(
      { length: 20 },
      (_, index) => `line ${index}: nothing much to say about the weather today`,
    );

    const result = await chat(['the password is swordfish', ...filler, 'what was the password?', ''].join('\n'), {
      MEMORY_TOKEN_BUDGET: '200',
    });

    expect(result.code).toBe(0);
    const asked = model.requests.filter((request) => !isSummary(request)).at(-1)!;
    expect(asked.messages[1]).toEqual({
      role: 'user',
      content: 'Earlier in this conversation: The password is swordfish.',
    });
    expect(asked.messages.some((message) => message.content === 'ada: the password is swordfish')).toBe(false);
  });

  it('remembers across two processes, per --thread, in SQLite', async () => {
    model.enqueue(finalAnswer('Noted, Ada.'));
    expect((await chat('my name is Ada\n')).code).toBe(0);

    model.enqueue((request) => {
      expect(request.messages.slice(1).map((message) => message.content)).toEqual([
        'ada: my name is Ada',
        'Noted, Ada.',
        'ada: what is my name?',
      ]);
      return finalAnswer('Your name is Ada.');
    });
    expect((await chat('what is my name?\n')).stdout).toContain('bot: Your name is Ada.');

    model.enqueue((request) => {
      expect(request.messages.slice(1).map((message) => message.content)).toEqual(['ada: what is my name?']);
      return finalAnswer('I do not know yet.');
    });
    const other = await runScript('src/chat.ts', {
      cwd,
      args: ['--thread', 'other'],
      stdin: 'what is my name?\n',
      env: { OPENAI_BASE_URL: model.baseURL, USER: 'ada' },
    });
    expect(other.stdout).toContain('bot: I do not know yet.');
  });

  it('prints a clear message when the model fails, and goes on to the next line', async () => {
    model.enqueue(apiError(401, 'Incorrect API key provided: sk-wrong-key-123456.'), finalAnswer('Back again.'));

    const result = await chat('hello\nhello again\n', { OPENAI_API_KEY: 'sk-wrong-key-123456', LOG_LEVEL: 'debug' });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "bot: (failed) The model service refused the bot's credentials. The operator needs to check OPENAI_API_KEY.",
    );
    expect(result.stdout).toContain('bot: Back again.');
    // The server echoed the key; it reaches neither the output, the logs, nor the database.
    expect(result.stdout + result.stderr).not.toContain('wrong-key-123456');
    for (const file of readdirSync(join(cwd, 'data')))
      expect(readFileSync(join(cwd, 'data', file)).toString('latin1')).not.toContain('wrong-key-123456');
    expect(readdirSync(join(cwd, 'data'))).toContain('bot.sqlite');
  });

  it('stops on invalid settings with one message naming each problem, exit code 1 and no stack trace', async () => {
    const result = await chat('hello\n', { OPENAI_TEMPERATURE: 'hot', MAX_STEPS: '0', OPENAI_BASE_URL: '' });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Cannot start: the settings have 3 problems');
    expect(result.stderr).toContain('OPENAI_TEMPERATURE must be a number from 0 to 2 (it is "hot")');
    expect(result.stderr).toContain('MAX_STEPS must be at least 1 (it is "0")');
    expect(result.stderr).toContain('OPENAI_API_KEY is required');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('reads settings from .env in the working directory, with the environment winning', async () => {
    writeFileSync(
      join(cwd, '.env'),
      `OPENAI_BASE_URL=http://127.0.0.1:9/v1\nOPENAI_MODEL=from-dotenv\nSYSTEM_PROMPT="You are Rex, a pirate."\n`,
    );
    model.enqueue((request) => {
      expect(request.model).toBe('from-dotenv');
      expect(request.messages[0]!.content).toMatch(/^You are Rex, a pirate\./);
      return finalAnswer('Arr.');
    });

    const result = await chat('hi\n');

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('bot: Arr.');
  });

  it('refuses an unknown flag with its usage', async () => {
    const result = await runScript('src/chat.ts', {
      cwd,
      args: ['--thred', 'x'],
      env: { OPENAI_BASE_URL: model.baseURL },
    });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('usage: npm run chat -- [--thread NAME]');
  });
});

describe('Ctrl-C with piped input', () => {
  it('stops the answer in progress, then quits at the next one, as at a terminal, leaving no run "running"', async () => {
    model.enqueue({ hang: true });
    // In a process group of its own, signalled as a whole, as a terminal's Ctrl-C does. Node itself,
    // as `npm run chat` runs it: npm may die of the second Ctrl-C as it cleans up after its script.
    const chatProcess = spawn(process.execPath, scriptArgs('src/chat.ts'), {
      cwd,
      detached: true,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, OPENAI_BASE_URL: model.baseURL, USER: 'ada' },
    });
    let stdout = '';
    chatProcess.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise((resolve) => chatProcess.on('close', resolve));
    chatProcess.stdin.write('a long question\n');
    await waitUntil(() => model.requests.length === 1, 'the model asked', 10_000);

    process.kill(-chatProcess.pid!, 'SIGINT');
    await waitUntil(() => stdout.includes('bot: (stopped)'), 'the answer stopped', 10_000);
    process.kill(-chatProcess.pid!, 'SIGINT');

    expect(await exited).toBe(0);
    expect(stdout).toBe('\n(stopping…)\nbot: (stopped) Stopped before an answer was reached.\n');
    const store = openStore(join(cwd, 'data', 'bot.sqlite'), { readOnly: true });
    expect(store.db.prepare('SELECT status FROM runs').pluck().all()).toEqual(['stopped']);
    expect(store.db.prepare('SELECT kind, stopped_at IS NOT NULL FROM instances').raw().all()).toEqual([['chat', 1]]);
    store.close();
  });
});
