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
 * Runs `script` (a path from the project root) as the npm scripts do (`scriptArgs`), in `cwd`, feeding `stdin`, killed after `killAfterMs` if given. The child
 * gets only PATH and HOME from this environment, plus `env`, so that no setting leaks in.
 */
export function runScript(
  script: string,
  options: { args?: string[]; env?: Record<string, string>; stdin?: string; cwd: string; killAfterMs?: number },
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...scriptArgs(script), ...(options.args ?? [])], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A command that hangs is killed, so that a failing test leaves no process behind (its code is then null).
    const killer =
      options.killAfterMs === undefined ? null : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    child.on('error', reject);
    child.on('close', (code) => {
      if (killer) clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}
