/**
 * `npm start` as a real process against the fakes, for tests that kill it (SIGKILL) at chosen
 * points and start it again on the same database.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { FakeDiscord } from './fake-discord.ts';
import { projectRoot, scriptArgs } from './run-process.ts';
import type { ScriptedModel } from './fake-model.ts';

export interface BotProcess {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  exited: Promise<number | null>;
  /** Resolves once the bot logged a line with this `msg`. */
  waitForLog(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
}

export interface BotProcessOptions {
  /** Node options before the script (`--expose-gc`, `--import` of a probe). */
  nodeArgs?: string[];
  /** Opens an IPC channel (`child.send`, `child.on('message')`) for a probe loaded with `nodeArgs`. */
  ipc?: boolean;
  /**
   * Runs `npm start` itself (npm, then node under it) in a process group of its own, as a shell
   * does; `process.kill(-child.pid, signal)` reaches the whole group. Not with `nodeArgs`.
   */
  npmStart?: boolean;
}

export async function startBotProcess(
  discord: FakeDiscord,
  model: Pick<ScriptedModel, 'baseURL'>,
  databasePath: string,
  env: Record<string, string> = {},
  options: BotProcessOptions = {},
): Promise<BotProcess> {
  // By default node itself on the compiled bot, as `npm start` runs it: one process, so SIGKILL kills the bot.
  const [command, args] = options.npmStart
    ? ['npm', ['start', '--silent']]
    : [process.execPath, [...(options.nodeArgs ?? []), ...scriptArgs('src/main.ts')]];
  const child = spawn(command, args, {
    cwd: projectRoot,
    detached: options.npmStart ?? false,
    stdio: options.ipc ? ['pipe', 'pipe', 'pipe', 'ipc'] : 'pipe',
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_MAX_RETRIES: '0',
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_TOKEN: discord.token,
      DATABASE_PATH: databasePath,
      LOG_LEVEL: 'debug',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  // Complete lines only: the last one may still be arriving.
  const logLines = () =>
    stdout
      .split('\n')
      .slice(0, -1)
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const handle: BotProcess = {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    // Polled: the fake's waitFor wakes on its own state changes, not on a child's output.
    waitForLog: async (msg, timeoutMs = 15_000) => {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const line = logLines().find((entry) => entry.msg === msg);
        if (line) return line;
        if (performance.now() > deadline)
          throw new Error(`no log line "${msg}" within ${timeoutMs} ms; stderr: ${stderr.slice(0, 500)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
  await handle.waitForLog('ready');
  return handle;
}
