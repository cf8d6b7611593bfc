import { lookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { addAbortSignal } from 'node:stream';
import { untilAborted } from '../agent/until-aborted.ts';
import { formatTimeLimit } from '../text/duration.ts';
import { truncate } from '../text/truncate.ts';
import { type AddressVerdict, classifyAddress } from './address-policy.ts';
import { FetchError } from './fetch-error.ts';
import { acceptEncoding, type Body, readBody } from './read-body.ts';
import { type ContentType, parseContentType } from './readable-text.ts';

/** Turns a host name into its addresses. Injected, so that tests never touch DNS. */
export type Resolver = (hostname: string) => Promise<readonly string[]>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), every address it knows. */
export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((answer) => answer.address);

export interface FetchLimits {
  /** Body bytes read, counted after decompression; reading stops there. */
  maxBytes: number;
  /** For the whole fetch, every redirect included. */
  timeoutMs: number;
  maxRedirects: number;
}

export const defaultFetchLimits: FetchLimits = { maxBytes: 2_000_000, timeoutMs: 15_000, maxRedirects: 5 };

/** URLs in messages are cut to this, so that a huge one does not fill the answer. */
const maxUrlChars = 200;

export interface SafeGetOptions {
  resolve: Resolver;
  limits: FetchLimits;
  userAgent: string;
  /** The caller giving up (the tool's signal): the fetch stops and rejects with its reason. */
  signal?: AbortSignal;
  /** Whether to read a body of this media type (null: none given); a refused one is not read. */
  acceptsType?: (mediaType: string | null) => boolean;
  /**
   * TEST ONLY. Lets through a canonical address the policy refuses, so that tests reach their
   * server on 127.0.0.1. Never set it from settings or the environment.
   */
  testOnlyAllow?: (address: string) => boolean;
}

/** A page as fetched: where it ended up after redirects, its status and its body. */
export interface FetchedPage {
  /** The final URL, without fragment. */
  url: string;
  /** The URL asked for, when redirects led elsewhere. */
  redirectedFrom: string | null;
  status: number;
  statusText: string;
  contentType: ContentType;
  body: Body;
}

const accept = 'text/html, application/xhtml+xml, text/plain;q=0.9, application/json;q=0.9, text/*;q=0.8, */*;q=0.5';
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * GET over http or https that reaches only public internet addresses. Every address a host name
 * resolves to is checked, and the socket is handed the checked address (a host name is resolved
 * once per request, by us), so a DNS answer that changes between check and connect cannot slip
 * past; an IP-literal host, which Node connects to without a lookup, is checked before connecting.
 * Redirects are followed by hand and each is checked the same way. No cookies or credentials are
 * sent; the body is read up to `limits.maxBytes`.
 */
export async function safeGet(requested: string, options: SafeGetOptions): Promise<FetchedPage> {
  const timeout = AbortSignal.timeout(options.limits.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    return await untilAborted(follow(requested, options, signal), signal);
  } catch (error) {
    if (timeout.aborted && !options.signal?.aborted) {
      throw new FetchError(
        'fetch-timeout',
        `${truncate(requested, maxUrlChars)} did not finish within ${formatTimeLimit(options.limits.timeoutMs)}.`,
        { cause: error },
      );
    }
    throw error;
  }
}

async function follow(requested: string, options: SafeGetOptions, signal: AbortSignal): Promise<FetchedPage> {
  let url = target(requested, null);
  const first = url.href;
  for (let redirects = 0; ; redirects++) {
    const response = await send(url, options, signal);
    const location = response.headers.location;
    if (redirectStatuses.has(response.statusCode ?? 0) && location) {
      response.destroy();
      if (redirects >= options.limits.maxRedirects) {
        throw new FetchError(
          'fetch-too-many-redirects',
          `${truncate(first, maxUrlChars)} redirected more than ${options.limits.maxRedirects} times; I stopped following.`,
        );
      }
      url = target(location, url);
      continue;
    }
    const contentType = parseContentType(response.headers['content-type']);
    if (options.acceptsType && !options.acceptsType(contentType.mediaType)) {
      response.destroy();
      throw new FetchError(
        'fetch-unreadable-type',
        `${truncate(url.href, maxUrlChars)} is ${contentType.mediaType}, which I cannot read as text.`,
      );
    }
    addAbortSignal(signal, response);
    const body = await readBody(response, options.limits.maxBytes, url.href);
    return {
      url: url.href,
      redirectedFrom: url.href === first ? null : first,
      status: response.statusCode ?? 0,
      statusText: response.statusMessage ?? '',
      contentType,
      body,
    };
  }
}

/** Parses a URL to fetch (a redirect's Location against the URL that sent it) and refuses what we do not fetch. */
function target(text: string, from: URL | null): URL {
  const where = from
    ? `${truncate(from.href, maxUrlChars)} redirected to ${truncate(text, maxUrlChars)}`
    : truncate(text, maxUrlChars);
  let url: URL;
  try {
    url = new URL(text, from ?? undefined);
  } catch {
    throw new FetchError(
      'fetch-invalid-url',
      from
        ? `${where}, which is not a valid URL.`
        : `"${where}" is not a valid URL; give a full http:// or https:// address.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError(
      'fetch-invalid-url',
      `${from ? where : truncate(url.href, maxUrlChars)}: I fetch only http:// and https:// URLs, not ${url.protocol}`,
    );
  }
  if (url.username || url.password) {
    throw new FetchError(
      'fetch-invalid-url',
      `${from ? where : 'That URL'} has a user name or password in it; I do not send credentials.`,
    );
  }
  url.hash = '';
  return url;
}

function send(url: URL, options: SafeGetOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return checkedAddress(host, options, signal).then(
    (address) =>
      new Promise<IncomingMessage>((resolve, reject) => {
        const request = (url.protocol === 'https:' ? https : http).request({
          // Node connects to an IP-literal host without calling `lookup`: give it the checked spelling.
          host: isIP(host) ? address.address : host,
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: 'GET',
          headers: {
            Host: url.host,
            'User-Agent': options.userAgent,
            Accept: accept,
            'Accept-Encoding': acceptEncoding,
          },
          lookup: pinnedLookup(address),
          agent: false,
          signal,
        });
        request.once('response', resolve);
        // `on`, not `once`: an abort or reset while the body is read errors the request again, after the response.
        request.on('error', (error) => reject(signal.aborted ? error : connectionError(error, url)));
        request.end();
      }),
  );
}

/** Resolves `host` (unless it is an address already), checks every answer, and returns the first. */
async function checkedAddress(
  host: string,
  options: SafeGetOptions,
  signal: AbortSignal,
): Promise<AddressVerdict & { allowed: true }> {
  const literal = isIP(host) !== 0;
  let answers: readonly string[];
  try {
    answers = literal ? [host] : await untilAborted(options.resolve(host), signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw new FetchError('fetch-unresolved', `Could not find the host ${host}.`, { cause: error });
  }
  if (answers.length === 0) throw new FetchError('fetch-unresolved', `Could not find the host ${host}.`);
  const verdicts = answers.map((answer) => verdictFor(answer, options));
  const refused = verdicts.find((verdict) => !verdict.allowed);
  if (refused && !refused.allowed) {
    const what = literal ? `${host} is ${refused.reason}` : `${host} resolves to ${refused.reason}`;
    throw new FetchError('fetch-refused-address', `Refused: ${what}; I fetch only from public internet addresses.`, {
      detail: `refused ${host}: ${refused.address} is ${refused.reason} (answers: ${answers.join(', ')})`,
    });
  }
  return verdicts[0] as AddressVerdict & { allowed: true };
}

function verdictFor(answer: string, options: SafeGetOptions): AddressVerdict {
  const verdict = classifyAddress(answer);
  const family = isIP(verdict.address);
  if (!verdict.allowed && family !== 0 && options.testOnlyAllow?.(verdict.address)) {
    return { allowed: true, address: verdict.address, family: family as 4 | 6 };
  }
  return verdict;
}

/** A `lookup` for the socket that answers only the address we checked, whatever it is asked. */
function pinnedLookup({ address, family }: { address: string; family: 4 | 6 }): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

function connectionError(error: Error, url: URL): FetchError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'the connection was refused',
    ECONNRESET: 'the connection was reset',
    ETIMEDOUT: 'the connection timed out',
    EHOSTUNREACH: 'the host is unreachable',
    ENETUNREACH: 'the network is unreachable',
  };
  const reason = reasons[code] ?? (code.startsWith('HPE_') ? 'the answer was not valid HTTP' : error.message);
  return new FetchError('fetch-failed', `Could not fetch ${truncate(url.href, maxUrlChars)}: ${reason}.`, {
    cause: error,
  });
}
