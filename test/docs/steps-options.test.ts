/**
 * The `/steps status:` choices the manual lists are the command's: a choice added to the command
 * and not to the docs (as `flagged` once was) fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runStatusFilters } from '../../db/server-runs.ts';
import { projectRoot } from '../support/run-process.ts';

it.each(['docs/moderators.md', 'README.md'])('%s lists every /steps status: choice', (page) => {
  const text = readFileSync(join(projectRoot, page), 'utf8');
  // The item that names `status:` and its choices, up to the next option or the paragraph's end.
  const item = /`status:`([\s\S]*?)(?:\n\s*-\s|\n\n|`since:`)/.exec(text);
  expect(item, `${page} names the status: option`).not.toBeNull();
  const listed = new Set([...item![1]!.matchAll(/`?\b([a-z]+)\b`?/g)].map((match) => match[1]));
  expect(runStatusFilters.filter((status) => !listed.has(status))).toEqual([]);
});
