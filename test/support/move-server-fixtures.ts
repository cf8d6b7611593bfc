/**
 * What the tests of `npm run move-server` share: real databases filled by the real agent (the
 * scripted model answering), a folder for each test, the script run as a process, and the
 * instances a test holds open, closed after it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';
import { openStore, type Store } from '../../db/store.ts';
import { loadTokenCounter, type TokenCounter } from '../../src/memory/token-counter.ts';
import type { HeldInstance } from './instance-process.ts';
import { runScript } from './run-process.ts';
import { type ScriptedModel, startScriptedModel } from './fake-model.ts';
import { everythingBut, fillDatabase, serverDump } from './server-data.ts';

export const server = '300000000000000001';
export const other = '300000000000000002';

/** The state of the test running: its folder and the instances it holds (closed after it). */
export interface MoveServerFixtures {
  folder: string;
  held: HeldInstance[];
}

/** Registers the hooks (call it at the top of a test file) and returns the state they keep. */
export function moveServerFixtures(): MoveServerFixtures {
  const fixtures: MoveServerFixtures = { folder: '', held: [] };
  beforeAll(async () => {
    model = await startScriptedModel();
    counter = await loadTokenCounter('gpt-4.1-mini');
  });
  afterAll(async () => {
    await model.close();
  });
  beforeEach(() => {
    fixtures.folder = mkdtempSync(join(tmpdir(), 'move-server-'));
    folder = fixtures.folder;
  });
  afterEach(async () => {
    await Promise.all(fixtures.held.map((instance) => instance.close()));
    fixtures.held = [];
  });
  return fixtures;
}

let model: ScriptedModel;
let counter: TokenCounter;
let folder: string;

/** A database file in the test's folder, filled with these servers' data, closed again. */
export async function database(name: string, servers: string[]): Promise<string> {
  const path = join(folder, name);
  const store = openStore(path);
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    await fillDatabase(store, model, counter, servers);
  } finally {
    vi.useRealTimers();
    store.close();
  }
  return path;
}

/** Reads a database (opened and closed around `read`). */
export function reading<T>(path: string, read: (store: Store) => T): T {
  const store = openStore(path);
  try {
    return read(store);
  } finally {
    store.close();
  }
}

export const everything = (path: string) =>
  reading(path, (store) => ({ server: serverDump(store, server), others: everythingBut(store, server) }));

export const moveServer = (...args: string[]) => runScript('src/move-server.ts', { args, cwd: folder });

/** A refusal: exit 1, one line on stderr, nothing on stdout. */
export function expectRefusal(result: { code: number | null; stdout: string; stderr: string }, line: RegExp) {
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^[^\n]+\n$/);
  expect(result.stderr.trim()).toMatch(line);
  expect(result.code).toBe(1);
}
