/**
 * The sources an answer may cite: URLs that this run's tool results showed the model (a search
 * result, a page fetched), noted by the tools themselves (`ToolContext.noteSource`), never read
 * from the model's words. `final_answer`'s `sources` keep those alone; any other URL the model
 * names is dropped and recorded in the step log as unverified. A passage of the server's knowledge
 * that has no link (a file a moderator added: it is never posted anywhere) is a source too, by its
 * document: `knowledge:<id>`, shown under the answer by its title (docs/knowledge.md).
 */

/** The URLs a run's tools showed, by their normalised form, each as the tool first showed it. */
export type SourceLedger = Map<string, string>;

/** The most sources listed under an answer. */
const maxSourcesListed = 10;

/** `knowledge:<document id>`, then, as noted by search_knowledge, `#` and the document's title (URI-encoded). */
const knowledgePattern = /^knowledge:(\d+)(?:#(.*))?$/s;

/** The source of a knowledge document without a link, as search_knowledge notes it: its id, and its title to show. */
export function knowledgeSource(documentId: number, title: string): string {
  return `knowledge:${documentId}#${encodeURIComponent(title)}`;
}

/** The title of a knowledge source (`knowledgeSource`); null for a URL. */
export function knowledgeSourceTitle(source: string): string | null {
  const match = knowledgePattern.exec(source);
  if (!match) return null;
  try {
    return decodeURIComponent(match[2] ?? '') || `document ${match[1]}`;
  } catch {
    return `document ${match[1]}`;
  }
}

/**
 * A URL's form for comparing: the host lower-cased and the default port dropped (as URL does),
 * no fragment, no trailing slash on the path, `www.` ignored, and http the same as https (the
 * model often writes one for the other). Null for what is not an http(s) URL.
 */
function normaliseUrl(text: string): string | null {
  const knowledge = knowledgePattern.exec(text.trim());
  if (knowledge) return `knowledge:${knowledge[1]}`;
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = url.hostname.replace(/^www\./, '');
  const port = url.port ? `:${url.port}` : '';
  const path = url.pathname.replace(/\/+$/, '');
  return `${host}${port}${path}${url.search}`;
}

/**
 * Notes a URL a tool showed; the first form shown is the one listed, as URL writes it (characters
 * such as `>` and spaces percent-encoded, so that it cannot break out of a Discord `<link>`).
 */
export function noteSource(ledger: SourceLedger, url: string): void {
  const key = normaliseUrl(url);
  if (key === null || ledger.has(key)) return;
  ledger.set(key, key.startsWith('knowledge:') ? url.trim() : new URL(url.trim()).href);
}

/**
 * The model's sources checked against the ledger: those found (as the tool showed them, each
 * once, in the model's order, at most `maxSourcesListed`), and the rest as the model wrote them.
 */
export function checkSources(
  claimed: readonly string[],
  ledger: ReadonlyMap<string, string>,
): { checked: string[]; unverified: string[] } {
  const checked: string[] = [];
  const unverified: string[] = [];
  for (const url of claimed) {
    const key = normaliseUrl(url);
    const found = key === null ? undefined : ledger.get(key);
    if (found === undefined) unverified.push(url);
    else if (!checked.includes(found) && checked.length < maxSourcesListed) checked.push(found);
  }
  return { checked, unverified };
}
