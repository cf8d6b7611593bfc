/**
 * Finds the relative links of Markdown files that lead nowhere: a file that does not exist, or an
 * `#anchor` that no heading of the target makes. Links to other sites are not followed (a test
 * reaches no address but 127.0.0.1). Fenced code and inline code are not read for links.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, relative, resolve, sep } from 'node:path';

/**
 * A heading's anchor as GitHub makes it (github-slugger, https://github.com/Flet/github-slugger):
 * lower case, every character that is not a letter, a mark, a digit, a connector (`_`), a hyphen or
 * a space removed, then each space a hyphen. Formatting is read as the rendered text: code spans
 * keep their text, emphasis markers and link targets go.
 */
export function githubSlug(heading: string): string {
  // Code spans are set aside (as a private-use character and their index) so that their text is kept as written.
  const codeSpans: string[] = [];
  const text = heading
    .replace(/(`+)([\s\S]*?)\1/g, (_, __, code: string) => `\uE000${codeSpans.push(code.trim()) - 1}\uE000`)
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/!?\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/<[^>]+>/g, '')
    // Emphasis: `*`, and `_` at a word's edge (`snake_case` keeps its underscores).
    .replace(/\*+/g, '')
    .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1')
    .replace(/\uE000(\d+)\uE000/g, (_, index: string) => codeSpans[Number(index)]!);
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The text outside fenced code blocks, code spans blanked, with its line breaks kept. */
function proseOf(markdown: string): string {
  let fence: string | null = null;
  const lines = markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker;
      return '';
    }
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      return '';
    }
    return line;
  });
  // A code span may run over a line break; blanked, it keeps the break so that line numbers hold.
  return lines.join('\n').replace(/(`+)[\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, ' '));
}

/** The anchors a Markdown file offers: its headings' slugs (repeats get -1, -2, …), and HTML ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) fence = marker;
    else if (fence !== null) {
      if (marker && marker[0] === fence[0] && line.trim() === marker) fence = null;
    } else {
      const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
      if (heading !== undefined) {
        const slug = githubSlug(heading);
        const count = seen.get(slug) ?? 0;
        seen.set(slug, count + 1);
        anchors.add(count === 0 ? slug : `${slug}-${count}`);
      }
      for (const match of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
    }
  }
  return anchors;
}

export interface MarkdownLink {
  line: number;
  target: string;
}

/** Every link target of a Markdown file, outside code: `[text](target)`, `![alt](target)`, `[id]: target`, `href="target"`. */
export function linksOf(markdown: string): MarkdownLink[] {
  const prose = proseOf(markdown);
  const patterns = [
    /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^\s()<>]+(?:\([^\s()]*\))?)>?(?:\s+"[^"]*")?\s*\)/g,
    /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm,
    /href="([^"]+)"/g,
  ];
  const links: MarkdownLink[] = [];
  for (const pattern of patterns) {
    for (const match of prose.matchAll(pattern)) {
      const line = prose.slice(0, match.index).split('\n').length;
      links.push({ line, target: match[1]! });
    }
  }
  return links.sort((a, b) => a.line - b.line);
}

/** The links of `files` (paths from `root`) that lead nowhere, as "file:line: target (why)". */
export function brokenLinks(root: string, files: readonly string[]): string[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (path: string) => {
    if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(readFileSync(path, 'utf8')));
    return anchorCache.get(path)!;
  };
  const broken: string[] = [];
  for (const file of files) {
    const from = resolve(root, file);
    for (const { line, target } of linksOf(readFileSync(from, 'utf8'))) {
      // Another site (http:, https:, mailto:) or a protocol-relative address: not followed.
      if (/^[a-z][a-z\d+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const problem = problemOf(root, from, target, anchorsIn);
      if (problem) broken.push(`${file}:${line}: ${target} (${problem})`);
    }
  }
  return broken;
}

function problemOf(
  root: string,
  from: string,
  target: string,
  anchorsIn: (path: string) => Set<string>,
): string | null {
  const hashAt = target.indexOf('#');
  const pathPart = decodeURI(hashAt === -1 ? target : target.slice(0, hashAt));
  const anchor = hashAt === -1 ? null : decodeURIComponent(target.slice(hashAt + 1));
  // GitHub reads a link that starts with / from the repository's root.
  const path = pathPart === '' ? from : resolve(pathPart.startsWith('/') ? root : dirname(from), `.${sep}${pathPart}`);
  const inside = relative(root, path);
  if (inside.startsWith('..')) return 'outside the repository';
  if (!existsSync(path)) return 'no such file';
  if (anchor === null || anchor === '') return null;
  if (statSync(path).isDirectory()) return 'an anchor on a folder';
  if (extname(path).toLowerCase() !== '.md')
    return /^L\d+(-L\d+)?$/.test(anchor) ? null : 'an anchor in a file that is not Markdown';
  return anchorsIn(path).has(anchor) ? null : `no heading makes #${anchor}`;
}
