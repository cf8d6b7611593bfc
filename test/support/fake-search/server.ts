/**
 * A fake web search provider on 127.0.0.1: one HTTP server that speaks one provider's API (the
 * dialects are in searxng.ts, brave.ts, tavily.ts, each written from the provider's reference). It
 * records every request, answers with the pages it is given (cut to the count asked, in the
 * provider's JSON), and can be told to fail the next request the way the provider fails.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A page the fake finds. */
export interface FakePage {
  title: string;
  url: string;
  snippet: string;
  date?: string;
}

/** A request as the fake saw it. */
export interface SeenSearch {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the fake does with the next request: fail with this status, body and headers, or never answer. */
export type Failure = { status: number; body?: unknown; headers?: Record<string, string> } | { hang: true };

/** What a provider's dialect knows: how to read a search, check its key, and write results. */
export interface Dialect {
  /** The path searches go to. */
  path: string;
  /** What the bot's URL setting holds after the origin: the endpoint (Brave, Tavily) or nothing (SearXNG's base). */
  settingPath: string;
  /** The search as asked: its words and count; null when the request is not one (wrong method, no query). */
  read(request: SeenSearch): { query: string; count: number | null } | null;
  /** The refusal for a request without the right key or format; null when it is accepted. */
  refuse(request: SeenSearch): Failure | null;
  /** A 200 answer's JSON. */
  results(query: string, pages: readonly FakePage[]): unknown;
}

export interface FakeSearch {
  /** The base URL to give the bot (SEARXNG_URL, BRAVE_SEARCH_URL or TAVILY_URL). */
  url: string;
  requests: SeenSearch[];
  /** The pages every search finds. */
  pages: FakePage[];
  /** The next request fails this way (once per call, in order). */
  failNext(failure: Failure): void;
  close(): Promise<void>;
}

export async function startFakeSearch(dialect: Dialect, pages: FakePage[] = []): Promise<FakeSearch> {
  const requests: SeenSearch[] = [];
  const failures: Failure[] = [];
  const fake = { pages };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const seen = {
        method: request.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body,
      };
      requests.push(seen);
      const asked = url.pathname === dialect.path ? dialect.read(seen) : null;
      if (!asked) return send(response, { status: 404, body: { error: 'not a search' } });
      const failure = failures.shift() ?? dialect.refuse(seen);
      if (failure) return send(response, failure);
      const found = fake.pages.slice(0, asked.count ?? 20);
      send(response, { status: 200, body: dialect.results(asked.query, found) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${dialect.settingPath}`,
    requests,
    get pages() {
      return fake.pages;
    },
    set pages(value) {
      fake.pages = value;
    },
    failNext: (failure) => void failures.push(failure),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(response: ServerResponse, failure: Failure): void {
  if ('hang' in failure) return;
  const text = typeof failure.body === 'string' ? failure.body : JSON.stringify(failure.body ?? {});
  const type = typeof failure.body === 'string' ? 'text/html' : 'application/json';
  response.writeHead(failure.status, { 'content-type': type, ...failure.headers }).end(text);
}
