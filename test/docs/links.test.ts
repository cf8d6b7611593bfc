import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../support/run-process.ts';
import { anchorsOf, brokenLinks, githubSlug, linksOf } from './markdown-links.ts';

/** The manual: every Markdown page at the root (README, COMPATIBILITY, RELIABILITY, BENCHMARKS, …) and in docs/. */
function manualPages(): string[] {
  const atRoot = readdirSync(projectRoot).filter((name) => name.endsWith('.md'));
  const inDocs = readdirSync(join(projectRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return [...atRoot, ...inDocs].sort();
}

describe('the manual', () => {
  it('has pages at the root and in docs/', () => {
    expect(manualPages()).toEqual(
      expect.arrayContaining([
        'README.md',
        'COMPATIBILITY.md',
        'RELIABILITY.md',
        'BENCHMARKS.md',
        'docs/operating.md',
        'docs/moderators.md',
        'ARCHITECTURE.md',
      ]),
    );
  });

  it('links only to files that exist and to anchors that their headings make', () => {
    expect(brokenLinks(projectRoot, manualPages())).toEqual([]);
  });

  it('keeps the README a first page: at most 220 lines, the rest in docs/', () => {
    expect(readFileText('README.md').split('\n').length).toBeLessThanOrEqual(220);
  });

  it('reaches every page of docs/ from the README in one click', () => {
    const fromReadme = new Set(linksOf(readFileText('README.md')).map(({ target }) => target.split('#')[0]!));
    const unreached = manualPages().filter((page) => page.startsWith('docs/') && !fromReadme.has(page));
    expect(unreached).toEqual([]);
  });
});

function readFileText(path: string): string {
  return readFileSync(join(projectRoot, path), 'utf8');
}

describe('the link check', () => {
  let folder: string | null = null;
  afterEach(() => {
    if (folder) rmSync(folder, { recursive: true, force: true });
    folder = null;
  });

  it('makes anchors as GitHub does: lower case, punctuation and symbols gone, spaces to hyphens, repeats numbered', () => {
    expect(githubSlug('Models, personas and tools per place')).toBe('models-personas-and-tools-per-place');
    expect(githubSlug('What the agent did: `npm run steps`')).toBe('what-the-agent-did-npm-run-steps');
    expect(githubSlug('`a.b` c')).toBe('ab-c');
    expect(githubSlug('foo _italic_ bar')).toBe('foo-italic-bar');
    expect(githubSlug('`fetch_url` and private addresses')).toBe('fetch_url-and-private-addresses');
    expect(githubSlug('1) not a list')).toBe('1-not-a-list');
    expect(githubSlug('I ♥ unicode')).toBe('i--unicode');
    expect(githubSlug('😄 unicode emoji')).toBe('-unicode-emoji');
    expect(githubSlug('See [the guide](guide.md) **now**')).toBe('see-the-guide-now');
    expect([...anchorsOf('# Logs\n\n## Logs\n\n```sh\n# not a heading\n```\n<a id="kept"></a>\n')]).toEqual([
      'logs',
      'logs-1',
      'kept',
    ]);
  });

  it('names a missing file, a missing anchor, and a link out of the repository; reads no code', () => {
    folder = mkdtempSync(join(tmpdir(), 'links-'));
    mkdirSync(join(folder, 'docs'));
    writeFileSync(join(folder, 'docs', 'page.md'), '# A page\n\n## Run and stop\n');
    writeFileSync(
      join(folder, 'README.md'),
      [
        '# Title',
        '',
        'Good: [page](docs/page.md), [section](docs/page.md#run-and-stop), [here](#title), [site](https://example.com/x).',
        'Bad: [gone](docs/gone.md) and [anchor](docs/page.md#stop-and-run),',
        'and [self](#nothing) and [up](../elsewhere.md).',
        '',
        '```md',
        '[in code](nowhere.md)',
        '```',
        'Inline `[in code](nowhere.md)` too.',
      ].join('\n'),
    );
    expect(brokenLinks(folder, ['README.md', 'docs/page.md'])).toEqual([
      'README.md:4: docs/gone.md (no such file)',
      'README.md:4: docs/page.md#stop-and-run (no heading makes #stop-and-run)',
      'README.md:5: #nothing (no heading makes #nothing)',
      'README.md:5: ../elsewhere.md (outside the repository)',
    ]);
  });
});
