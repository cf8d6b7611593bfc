/**
 * The sources an answer may cite: URLs that this run's tool results showed the model (a search
 * result, a page fetched), noted by the tools themselves (`ToolContext.noteSource`), never read
 * from the model's words. `final_answer`'s `sources` keep those alone; any other URL the model
 * names is dropped and recorded in the step log as unverified.
 */

/** The URLs a run's tools showed, by their normalised form, each as the tool first showed it. */
export type SourceLedger = Map<string, string>;

/** The most sources listed under an answer. */
const maxSourcesListed = 10;

/**
 * A URL's form for comparing: the host lower-cased and the default port dropped (as URL does),
 * no fragment, no trailing slash on the path, `www.` ignored, and http the same as https (the
 * model often writes one for the other). Null for what is not an http(s) URL.
 */
function normaliseUrl(text: string): string | null {
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
  if (key !== null && !ledger.has(key)) ledger.set(key, new URL(url.trim()).href);
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
