import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { holdInstanceLock, instanceLockFolder, instanceLockPath, probeInstanceLock } from '../../db/instance-lock.ts';
import { openStore } from '../../db/store.ts';
import { type HeldInstance, startHeldInstance } from '../support/instance-process.ts';
import { exitedUnreaped, processState, waitForProcess } from '../support/process-state.ts';
import { tempStore } from '../support/temp-store.ts';

let held: HeldInstance | undefined;
afterEach(async () => {
  await held?.close();
  held = undefined;
});

describe('instance lock files', () => {
  it('live beside the database, and not at all for a database in memory', () => {
    const { store, path } = tempStore();
    const memory = openStore(':memory:');

    expect(instanceLockFolder(store.db)).toBe(`${path}-instances`);
    expect(instanceLockFolder(memory.db)).toBeNull();
    store.close();
    memory.close();
  });

  it('are held by another process while it lives, and free once the kernel killed it, while it is still an unreaped zombie', async () => {
    const { store, path } = tempStore();
    held = await startHeldInstance(path, 'bot');
    const lockPath = instanceLockPath(instanceLockFolder(store.db)!, held.instanceId);

    expect(probeInstanceLock(lockPath)).toBe('held');
    // A probe takes nothing away: asking again gets the same answer.
    expect(probeInstanceLock(lockPath)).toBe('held');

    process.kill(held.pid, 'SIGKILL');
    await waitForProcess(held.pid, exitedUnreaped, 'exited and unreaped');

    expect(probeInstanceLock(lockPath)).toBe('free');
    // Its parent never reaps it: the kernel dropped the lock all the same.
    expect(processState(held.pid)).toBe('Z');
    store.close();
  });

  it('held in this process stay held when a probe of the same file closes, and are gone once released', () => {
    const { store } = tempStore();
    const folder = instanceLockFolder(store.db)!;
    const lock = holdInstanceLock(folder, 'here');

    // POSIX drops all of a process's locks on a file when it closes any descriptor of it; SQLite
    // keeps the probe's open while the lock is held, so probing twice still finds it held.
    expect(probeInstanceLock(lock.path)).toBe('held');
    expect(probeInstanceLock(lock.path)).toBe('held');
    lock.release();

    expect(existsSync(lock.path)).toBe(false);
    expect(probeInstanceLock(lock.path)).toBe('none');
    store.close();
  });

  it('are free when nobody holds them, as a file left by a process on another machine', () => {
    const { store } = tempStore();
    const folder = instanceLockFolder(store.db)!;
    mkdirSync(folder);
    const path = join(folder, 'left-behind.lock');
    writeFileSync(path, '');

    expect(probeInstanceLock(path)).toBe('free');
    store.close();
  });
});
