/** Runs one of the project's commands as a child process, the way a person would from a shell. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
/** tsx's loader by absolute URL, so that a child started in another folder still finds it. */
export const tsxLoader = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

/**
 * Node's arguments to run `script` (a path from the project root) as the npm scripts do: the bot's
 * commands (`src/main.ts` and the like) compiled, from dist/ (built for the tests by
 * build-once.ts); the tests' own scripts through tsx.
 */
export function scriptArgs(script: string): string[] {
  const command = /^src\/([\w-]+)\.ts$/.exec(script);
  return command ? [`${projectRoot}dist/${command[1]}.js`] : ['--import', tsxLoader, `${projectRoot}${script}`];
}

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` (a path from the project root) as the npm scripts do (`scriptArgs`), in `cwd`, feeding `stdin`. The child
 * gets only PATH and HOME from this environment, plus `env`, so that no setting leaks in. With `timeoutMs`, a child
 * still running then is killed (its code is then null): for a test of a command that should stop at once but might not.
 */
export function runScript(
  script: string,
  options: {
    args?: string[];
    env?: Record<string, string>;
    stdin?: string;
    cwd: string;
    timeoutMs?: number;
    /** Run as this user and group (the tests run as root in CI: to be someone a file is not writable by). */
    as?: { uid: number; gid: number };
  },
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...scriptArgs(script), ...(options.args ?? [])], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...options.as,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer =
      options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}
