/**
 * What every command does first: read the settings and open the database, stopping with one
 * clear message (and no stack trace) when either cannot be used.
 */
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname } from 'node:path';
import { openStore, type Store } from '../../db/store.ts';
import { type ConfigPurpose, formatProblems, parseConfig, readDotenv } from '../settings/config.ts';
import type { Config } from '../settings/config-shape.ts';
import { UserFacingError } from '../agent/errors.ts';

export function loadConfigOrExit(purpose: ConfigPurpose): Config {
  const loaded = parseConfig(process.env, readDotenv('.env'), { purpose });
  if (loaded.ok) return loaded.config;
  console.error(formatProblems(loaded.problems));
  process.exit(1);
}

export function openStoreOrExit(path: string): Store {
  try {
    return openStore(path);
  } catch (error) {
    console.error(
      error instanceof UserFacingError
        ? error.userMessage
        : (notWritable(path) ?? `Cannot open the database ${path}: ${(error as Error).message}`),
    );
    process.exit(1);
  }
}

/**
 * Why the database cannot be written, when a file of it or its folder is not writable by this
 * process: whose it is, and the fix. Met when the bot runs as a user (systemd's `User=bot`) and the
 * database was made by another (`npm run doctor` run as yourself first).
 */
function notWritable(path: string): string | null {
  const folder = dirname(path);
  const target = [path, `${path}-wal`, `${path}-shm`, folder].find((file) => existsSync(file) && !writable(file));
  if (target === undefined) return null;
  const { uid, mode } = statSync(target);
  const me = userInfo().username;
  return [
    `Cannot open the database ${path}: ${target} belongs to ${userName(uid)} (mode ${(mode & 0o777).toString(8)}), and the bot runs as ${me}, who may not write to it.`,
    `Give the database's folder to the user the bot runs as, then start again: sudo chown -R ${me}: ${folder}`,
  ].join(' ');
}

function writable(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The name of the user with this id (from /etc/passwd), else "user ID". */
function userName(uid: number): string {
  try {
    const entry = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((line) => line.split(':')[2] === String(uid));
    if (entry) return entry.split(':')[0]!;
  } catch {
    // No /etc/passwd (Windows, a bare container): the id says it.
  }
  return `user ${uid}`;
}
