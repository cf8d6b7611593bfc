/**
 * A process that holds an instance on a database, for tests about processes that die: it opens the
 * database, starts an instance and a run of it, prints one JSON line `{"pid", "instanceId",
 * "runId"}` on stdout, and waits to be killed; or, if the start is refused, prints `{"error"}`.
 *
 *   node --import tsx test/support/instance-process.ts DATABASE_PATH KIND
 *
 * `startHeldInstance` runs it under a parent that never reaps it (`sh -c '... & exec sleep'`), so
 * that once killed it stays a zombie for as long as the test wants.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../db/store.ts';
import { UserFacingError } from '../../src/agent/errors.ts';
import { startInstance } from '../../src/run-log/instance.ts';
import { tsxLoader } from './run-process.ts';

export interface HeldInstance {
  /** The parent that does not reap (the leader of a process group of its own). */
  parent: ChildProcess;
  pid: number;
  instanceId: string;
  runId: string;
  /** Kills the parent and, if still there, the instance process. */
  close(): Promise<void>;
}

export async function startHeldInstance(databasePath: string, kind: string): Promise<HeldInstance> {
  const script = fileURLToPath(import.meta.url);
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const command = [process.execPath, '--import', tsxLoader, script, databasePath, kind].map(quote).join(' ');
  const parent = spawn('sh', ['-c', `${command} & exec sleep 600`], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  const closed = new Promise((resolve) => parent.on('close', resolve));
  let stdout = '';
  let stderr = '';
  parent.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    parent.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
    });
    void closed.then(() => reject(new Error(`the instance process stopped before it was ready: ${stderr}`)));
  });
  const ready = JSON.parse(line) as { pid: number; instanceId: string; runId: string } | { error: string };
  if ('error' in ready) {
    process.kill(-parent.pid!, 'SIGKILL');
    await closed;
    throw new Error(ready.error);
  }
  return {
    parent,
    ...ready,
    async close() {
      try {
        process.kill(ready.pid, 'SIGKILL');
      } catch {
        // Already dead.
      }
      process.kill(-parent.pid!, 'SIGKILL');
      await closed;
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [databasePath, kind] = process.argv.slice(2) as [string, string];
  const store = openStore(databasePath);
  let instance;
  try {
    instance = startInstance(store, kind, { exclusive: true });
  } catch (error) {
    console.log(JSON.stringify({ error: String(error instanceof UserFacingError ? error.userMessage : error) }));
    process.exit(1);
  }
  const conversation = store.conversations.ensure({
    key: `test:${instance.id}`,
    title: 'held',
    guildId: null,
    channelId: null,
    startedById: null,
    startedByName: null,
  });
  const runId = `run-${instance.id}`;
  store.runs.start({
    id: runId,
    conversationId: conversation.id,
    instanceId: instance.id,
    triggerMessageIds: [],
    model: 'm',
  });
  console.log(JSON.stringify({ pid: process.pid, instanceId: instance.id, runId }));
  setInterval(() => {}, 60_000);
}
