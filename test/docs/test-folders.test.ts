/**
 * The tests mirror the tree (ARCHITECTURE.md, docs/development.md "Tests"): every folder of src/
 * that holds code has its folder under test/ (src/discord/runs/ → test/discord/runs/), so a
 * newcomer finds a module's tests where the module is. A folder tested from elsewhere is named
 * below with the reason.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/run-process.ts';

/** Folders of src/ whose tests live in another test folder, and where. */
const testedElsewhere: Record<string, string> = {
  'agent/turns': 'the steps of one turn, tested through runAgent in test/agent/',
  'model-servers/profiles': 'one table of server profiles, its rows in test/model-servers/profiles.test.ts',
  'web/search': 'the web search client, in test/tools/web-search.test.ts (the tool) and test/web/',
  'web/search/providers': 'the providers, in test/tools/web-search.test.ts and test/web/listed-results.test.ts',
  'moderator-log': "the log channel's cards, tested as posted in test/discord/moderator-log/",
  'discord/catch-up': '/summarize read through the bot, tested with its command in test/commands/summarize.test.ts',
};

/** Every folder under `root` (relative, with `/`) that holds a .ts file. */
function codeFolders(root: string, folder = root): string[] {
  const entries = readdirSync(folder);
  const here = entries.some((entry) => entry.endsWith('.ts')) && folder !== root ? [relative(root, folder)] : [];
  const below = entries
    .map((entry) => join(folder, entry))
    .filter((path) => statSync(path).isDirectory())
    .flatMap((path) => codeFolders(root, path));
  return [...here, ...below].map((path) => path.split('\\').join('/'));
}

const isFolder = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

describe('the test tree mirrors src/', () => {
  const folders = codeFolders(join(projectRoot, 'src'));

  it('has a test folder for every folder of src/ with code, or says where its tests are', () => {
    const missing = folders.filter(
      (folder) => !(folder in testedElsewhere) && !isFolder(join(projectRoot, 'test', folder)),
    );
    expect(missing).toEqual([]);
  });

  it('names no folder as tested elsewhere that is gone or has a test folder of its own', () => {
    const stale = Object.keys(testedElsewhere).filter(
      (folder) => !folders.includes(folder) || isFolder(join(projectRoot, 'test', folder)),
    );
    expect(stale).toEqual([]);
  });

  it('has a test folder for the top-level folders of code: commands/, tools/ and db/', () => {
    expect(['commands', 'tools', 'db'].filter((folder) => !isFolder(join(projectRoot, 'test', folder)))).toEqual([]);
  });
});
