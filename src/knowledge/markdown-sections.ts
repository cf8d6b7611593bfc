import type { KnowledgeSection } from './knowledge-document.ts';

/** How a heading path is written: "Install › On Linux". */
const headingSeparator = ' › ';

/**
 * Markdown cut at its ATX headings (`#` to `######`, CommonMark 4.2), each section under the path
 * of headings above it; a `#` inside a fenced code block (CommonMark 4.5) is not a heading. The
 * title is the first level-1 heading.
 */
export function markdownSections(text: string): { title: string | null; sections: KnowledgeSection[] } {
  const sections: KnowledgeSection[] = [];
  const path: string[] = [];
  let title: string | null = null;
  let lines: string[] = [];
  let fence: string | null = null;
  const close = () => {
    sections.push({
      heading: path.length > 0 ? path.filter(Boolean).join(headingSeparator) : null,
      text: lines.join('\n'),
    });
    lines = [];
  };
  for (const line of text.split(/\r?\n/)) {
    const fenceMark = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fenceMark !== undefined && (fence === null || fenceMark.startsWith(fence)))
      fence = fence === null ? fenceMark : null;
    const heading = fence === null ? /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line) : null;
    if (!heading) {
      lines.push(line);
      continue;
    }
    close();
    const level = heading[1]!.length;
    const words = heading[2]!.trim();
    if (level === 1 && title === null) title = words;
    path.length = Math.min(path.length, level - 1);
    while (path.length < level - 1) path.push('');
    path.push(words);
  }
  close();
  return { title, sections };
}
