import type { HtmlToTextOptions } from 'html-to-text';
import type { KnowledgeSection } from './knowledge-document.ts';
import { markdownSections } from './markdown-sections.ts';
import { notTextSelectors } from '../web/readable-text.ts';

/**
 * HTML as sections: html-to-text (the converter src/web/readable-text.ts uses) writes each h1-h6
 * as a Markdown heading line, which markdownSections then cuts at. Scripts, images and the like
 * are left out; links keep their text only. The title is the page's <title>, else its first h1.
 */
export async function htmlDocument(html: string): Promise<{ title: string | null; sections: KnowledgeSection[] }> {
  // Loaded at the first HTML document, not at start (as src/web/readable-text.ts does).
  const { convert } = await import('html-to-text');
  const text = convert(html, htmlOptions)
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n');
  const parsed = markdownSections(text);
  const inner = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const title = inner === undefined ? null : convert(inner, { wordwrap: false }).replace(/\s+/g, ' ').trim();
  return { title: title || parsed.title, sections: parsed.sections };
}

const headingOptions = (level: number) => ({
  selector: `h${level}`,
  format: 'markdownHeading',
  options: { prefix: `${'#'.repeat(level)} ` },
});

const htmlOptions: HtmlToTextOptions = {
  wordwrap: false,
  formatters: {
    // A heading as a line of its own, prefixed with its #s (html-to-text's formatter API:
    // https://github.com/html-to-text/node-html-to-text/tree/master/packages/html-to-text#override-formatting).
    markdownHeading(element, walk, builder, options) {
      builder.openBlock({ leadingLineBreaks: 2 });
      builder.addInline(String(options.prefix ?? ''));
      walk(element.children, builder);
      builder.closeBlock({ trailingLineBreaks: 2 });
    },
  },
  selectors: [
    ...notTextSelectors,
    { selector: 'nav', format: 'skip' },
    { selector: 'table', format: 'dataTable' },
    { selector: 'a', options: { ignoreHref: true } },
    ...[1, 2, 3, 4, 5, 6].map(headingOptions),
  ],
};
