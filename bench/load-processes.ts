/**
 * The load benches' fakes, each in a process of its own so that their work is not counted as the
 * bot's: the fake model's echo mode (test/support/fake-model/echo-mode.ts) and the fake Discord with its people
 * (bench/load-discord.ts, whose environment `discordEnv` adds to).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';

export interface LoadProcesses {
  model: ChildProcess;
  /** The model's chat-completions base URL. */
  modelURL: string;
  discord: ChildProcess;
  apiUrl: string;
  token: string;
}

export async function startLoadProcesses(
  latencyMs: number,
  discordEnv: Record<string, string> = {},
): Promise<LoadProcesses> {
  const tsx = ['--import', 'tsx'];
  const model = fork(new URL('../test/support/fake-model/own-process.ts', import.meta.url), ['echo'], {
    execArgv: tsx,
    env: { ...process.env, LATENCY_MS: String(latencyMs) },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const [portLine] = (await once(model.stdout!, 'data')) as [Buffer];
  const discord = fork(new URL('./load-discord.ts', import.meta.url), [], {
    execArgv: tsx,
    env: { ...process.env, ...discordEnv },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [{ apiUrl, token }] = (await once(discord, 'message')) as [{ apiUrl: string; token: string }];
  return { model, modelURL: `http://127.0.0.1:${portLine.toString().trim()}/v1`, discord, apiUrl, token };
}
