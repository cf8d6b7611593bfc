import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../db/store.ts';

/** A real, migrated database in a fresh temporary folder; `path` lets a test open it again. */
export function tempStore(): { store: Store; path: string } {
  const path = join(mkdtempSync(join(tmpdir(), 'store-')), 'bot.sqlite');
  return { store: openStore(path), path };
}
