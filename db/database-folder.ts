/**
 * The folder of DATABASE_PATH: checked with the settings (a path under a file is one of the
 * problems every command names at start), and made when the database is first opened.
 *
 * Made one level at a time rather than with `mkdirSync(…, { recursive: true })`: Node's recursive
 * mkdir takes ENOENT to mean "the parent is missing", makes the parent (EEXIST) and tries again,
 * and under /proc, whose mkdir answers ENOENT for a folder that cannot exist, it loops for ever at
 * full CPU without a word (measured here on Node 20: `DATABASE_PATH=/proc/x/bot.sqlite` hung;
 * the mechanism is described in https://github.com/Kewton/CommandMate/issues/1774).
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserFacingError } from '../src/agent/errors.ts';

/** The folders of `path` that do not exist yet (outermost first), and the nearest that does. */
function missingFolders(path: string): { missing: string[]; nearest: { path: string; isFolder: boolean } | null } {
  const missing: string[] = [];
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    const found = statSync(folder, { throwIfNoEntry: false });
    if (found) return { missing, nearest: { path: folder, isFolder: found.isDirectory() } };
    missing.unshift(folder);
    if (dirname(folder) === folder) return { missing, nearest: null };
  }
}

/** Why the database at `path` can never be made, or null: a file where one of its folders would be. */
export function databaseFolderProblem(path: string): string | null {
  if (path === ':memory:') return null;
  const { nearest } = missingFolders(path);
  return nearest && !nearest.isFolder ? `DATABASE_PATH is under "${nearest.path}", a file, not a folder` : null;
}

/** Makes the folders the database at `path` needs; a `UserFacingError` naming the one that cannot be made. */
export function makeDatabaseFolder(path: string): void {
  if (path === ':memory:') return;
  const advice = 'Point DATABASE_PATH at a folder the bot may write to.';
  const { missing, nearest } = missingFolders(path);
  if (nearest && !nearest.isFolder)
    throw new UserFacingError(
      'database-folder',
      `Cannot open the database ${path}: "${nearest.path}" is a file, not a folder. ${advice}`,
    );
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Made meanwhile by another process (a shard, the doctor): fine.
      if (code === 'EEXIST' && statSync(folder, { throwIfNoEntry: false })?.isDirectory()) continue;
      throw new UserFacingError(
        'database-folder',
        `Cannot open the database ${path}: its folder ${folder} cannot be made (${code ?? String(error)}). ${advice}`,
        { cause: error },
      );
    }
  }
}
