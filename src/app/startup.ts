/**
 * What every command does first: read the settings and open the database, stopping with one
 * clear message (and no stack trace) when either cannot be used.
 */
import { openStore, type Store } from '../../db/store.ts';
import { type ConfigPurpose, formatProblems, parseConfig, readDotenv } from './config.ts';
import type { Config } from './config-shape.ts';
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
        : `Cannot open the database ${path}: ${(error as Error).message}`,
    );
    process.exit(1);
  }
}
