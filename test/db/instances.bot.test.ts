/**
 * Which instances count as alive (the table in db/instances.ts), as `startInstance` applies it:
 * other processes are real ones where the claim is about processes (test/support/instance-process.ts).
 */
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { holdInstanceLock, instanceLockFolder, instanceLockPath } from '../../db/instance-lock.ts';
import { staleAfterMs } from '../../db/instances.ts';
import type { Store } from '../../db/store.ts';
import { InstanceAlreadyRunningError, startInstance } from '../../src/run-log/instance.ts';
import { type HeldInstance, startHeldInstance } from '../support/instance-process.ts';
import { exitedUnreaped, processState, waitForProcess } from '../support/process-state.ts';
import { tempStore } from '../support/temp-store.ts';

let held: HeldInstance[] = [];
afterEach(async () => {
  await Promise.all(held.map((instance) => instance.close()));
  held = [];
});

const refusal =
  /^Another bot \(process \d+ on .+\) is already using this database\. Stop it first, or point DATABASE_PATH at another file\.$/;

/** A row as another process wrote it (this process never registered it), with a running run. */
function otherInstance(store: Store, id: string, row: { hostname: string; heartbeatAt: number; pid?: number }): string {
  store.db
    .prepare('INSERT INTO instances (id, kind, pid, hostname, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(id, 'bot', row.pid ?? 1, row.hostname, row.heartbeatAt, row.heartbeatAt);
  const conversation = store.conversations.ensure({
    key: `test:${id}`,
    title: id,
    guildId: null,
    channelId: null,
    startedById: null,
    startedByName: null,
  });
  store.runs.start({
    id: `run-${id}`,
    conversationId: conversation.id,
    instanceId: id,
    triggerMessageIds: [],
    model: 'm',
  });
  return `run-${id}`;
}

const lockFolder = (store: Store) => instanceLockFolder(store.db)!;

describe('a killed process that is still a zombie (its parent has not reaped it)', () => {
  it('does not block a start: its runs are interrupted, its row stopped and its lock file deleted at once', async () => {
    const { store, path } = tempStore();
    const killed = await startHeldInstance(path, 'bot');
    held.push(killed);
    process.kill(killed.pid, 'SIGKILL');
    await waitForProcess(killed.pid, exitedUnreaped, 'exited and unreaped');

    const bot = startInstance(store, 'bot', { exclusive: true });

    expect(store.runs.byId(killed.runId)?.status).toBe('interrupted');
    expect(store.instances.byId(killed.instanceId)?.stopped_at).not.toBeNull();
    expect(existsSync(instanceLockPath(lockFolder(store), killed.instanceId))).toBe(false);
    // Still a zombie: the start did not wait for it to be reaped.
    expect(processState(killed.pid)).toBe('Z');
    bot.stop();
  });

  it('does not block a start without its lock file either (a row from before lock files): /proc says it is a zombie', async () => {
    const { store, path } = tempStore();
    const killed = await startHeldInstance(path, 'bot');
    held.push(killed);
    process.kill(killed.pid, 'SIGKILL');
    await waitForProcess(killed.pid, exitedUnreaped, 'exited and unreaped');
    rmSync(instanceLockPath(lockFolder(store), killed.instanceId));

    const bot = startInstance(store, 'bot', { exclusive: true });

    expect(store.runs.byId(killed.runId)?.status).toBe('interrupted');
    expect(processState(killed.pid)).toBe('Z');
    bot.stop();
  });
});

describe('an instance on another host with a fresh heartbeat', () => {
  it('whose lock is not held (the container moved to another machine with the volume) does not block a start', () => {
    const { store } = tempStore();
    const runId = otherInstance(store, 'moved', { hostname: 'old-machine', heartbeatAt: Date.now() });
    mkdirSync(lockFolder(store), { recursive: true });
    writeFileSync(instanceLockPath(lockFolder(store), 'moved'), '');

    const bot = startInstance(store, 'bot', { exclusive: true });

    expect(store.runs.byId(runId)?.status).toBe('interrupted');
    expect(store.instances.byId('moved')?.stopped_at).not.toBeNull();
    expect(existsSync(instanceLockPath(lockFolder(store), 'moved'))).toBe(false);
    bot.stop();
  });

  it('whose lock is held blocks an exclusive start, and its runs are left alone', () => {
    const { store } = tempStore();
    const runId = otherInstance(store, 'elsewhere', { hostname: 'other-machine', heartbeatAt: Date.now() });
    // Held in this process by a connection of its own: SQLite refuses the probe as the kernel would.
    const lock = holdInstanceLock(lockFolder(store), 'elsewhere');

    expect(() => startInstance(store, 'bot', { exclusive: true })).toThrow(refusal);
    expect(store.runs.byId(runId)?.status).toBe('running');
    lock.release();
  });

  it('without a lock file (written by an older version) blocks an exclusive start until its heartbeat is stale', () => {
    const { store } = tempStore();
    otherInstance(store, 'old-fresh', { hostname: 'other-machine', heartbeatAt: Date.now() });

    expect(() => startInstance(store, 'bot', { exclusive: true })).toThrow(refusal);

    const staleRun = otherInstance(store, 'old-stale', {
      hostname: 'other-machine',
      heartbeatAt: Date.now() - staleAfterMs - 1000,
    });
    store.db.prepare("UPDATE instances SET stopped_at = 1 WHERE id = 'old-fresh'").run();
    const bot = startInstance(store, 'bot', { exclusive: true });
    expect(store.runs.byId(staleRun)?.status).toBe('interrupted');
    bot.stop();
  });
});

describe('a held lock', () => {
  it('counts as alive even with a stale heartbeat: a stuck process, not a dead one', () => {
    const { store } = tempStore();
    const runId = otherInstance(store, 'stuck', { hostname: hostname(), heartbeatAt: Date.now() - 10 * staleAfterMs });
    const lock = holdInstanceLock(lockFolder(store), 'stuck');

    expect(() => startInstance(store, 'bot', { exclusive: true })).toThrow(refusal);
    expect(store.runs.byId(runId)?.status).toBe('running');
    lock.release();
  });
});

describe('a live bot in another process', () => {
  it('refuses a second bot with a clear message naming its process, and lets a chat share the database without touching its runs', async () => {
    const { store, path } = tempStore();
    const live = await startHeldInstance(path, 'bot');
    held.push(live);

    let error: unknown;
    try {
      startInstance(store, 'bot', { exclusive: true });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InstanceAlreadyRunningError);
    expect((error as InstanceAlreadyRunningError).userMessage).toBe(
      `Another bot (process ${live.pid} on ${hostname()}) is already using this database. Stop it first, or point DATABASE_PATH at another file.`,
    );
    // The refused start leaves no lock file behind: only the live bot's.
    expect(store.db.prepare('SELECT count(*) FROM instances').pluck().get()).toBe(1);

    const chat = startInstance(store, 'chat');
    expect(store.runs.byId(live.runId)?.status).toBe('running');
    chat.stop();
  });

  it('of two bots started at the same moment, exactly one starts', async () => {
    const { path } = tempStore();
    const starts = await Promise.allSettled([startHeldInstance(path, 'bot'), startHeldInstance(path, 'bot')]);
    held.push(...starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : [])));

    expect(starts.filter((start) => start.status === 'fulfilled')).toHaveLength(1);
    const refused = starts.find((start) => start.status === 'rejected');
    expect(String(refused?.reason)).toMatch(/Another bot \(process \d+ on .+\) is already using this database/);
  });
});

describe('lock files', () => {
  it('are deleted by a clean stop, each instance its own, and the last one takes the folder with it', () => {
    const { store } = tempStore();
    const first = startInstance(store, 'chat');
    const second = startInstance(store, 'chat');
    const [firstLock, secondLock] = [first, second].map((instance) => instanceLockPath(lockFolder(store), instance.id));
    expect(existsSync(firstLock!) && existsSync(secondLock!)).toBe(true);

    first.stop();

    expect(existsSync(firstLock!)).toBe(false);
    expect(existsSync(secondLock!)).toBe(true);
    second.stop();
    expect(existsSync(lockFolder(store))).toBe(false);
  });

  it('left by gone instances are deleted at the next start: of a stopped row, and of no row when old; a new one (an instance starting) stays', () => {
    const { store } = tempStore();
    const folder = lockFolder(store);
    mkdirSync(folder, { recursive: true });
    otherInstance(store, 'stopped', { hostname: hostname(), heartbeatAt: Date.now() });
    store.instances.stop('stopped');
    const old = new Date(Date.now() - 2 * staleAfterMs);
    for (const id of ['stopped', 'orphan-old', 'orphan-new']) writeFileSync(instanceLockPath(folder, id), '');
    utimesSync(instanceLockPath(folder, 'orphan-old'), old, old);

    const chat = startInstance(store, 'chat');

    expect(['stopped', 'orphan-old', 'orphan-new'].map((id) => existsSync(instanceLockPath(folder, id)))).toEqual([
      false,
      false,
      true,
    ]);
    chat.stop();
  });

  it('that cannot be made (the folder is taken by a file) do not stop a start: it warns, and is judged by its heartbeat', () => {
    const { store, path } = tempStore();
    writeFileSync(`${path}-instances`, 'not a folder');
    const warnings: object[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (fields: object) => void warnings.push(fields) };

    const chat = startInstance(store, 'chat', { logger });

    expect(warnings).toEqual([expect.objectContaining({ folder: `${path}-instances` })]);
    expect(store.instances.byId(chat.id)?.stopped_at).toBeNull();
    chat.stop();
  });
});
