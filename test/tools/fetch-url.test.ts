import { brotliCompressSync, createGzip, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/agent/logger.ts';
import { fromZodTool } from '../../src/agent/runtime-tool.ts';
import type { Resolver } from '../../src/web/safe-fetch.ts';
import { fetchUrl, fetchUrlTool, type FetchUrlOptions } from '../../tools/fetch-url.ts';
import { builtInTools } from '../../tools/index.ts';
import { startWebServer, type WebServer, writeRepeatedly } from '../support/web-server.ts';

// No test here uses DNS or leaves loopback: every host name goes through the resolver below, and
// all of them are under .test (RFC 6761), which no real DNS answers.

/** A resolver from a table; a function entry answers differently on each call. Records each call. */
function fakeResolver(table: Record<string, readonly string[] | (() => readonly string[])>) {
  const calls: string[] = [];
  const resolve: Resolver = async (hostname) => {
    calls.push(hostname);
    const answer = table[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return typeof answer === 'function' ? answer() : answer;
  };
  return { resolve, calls };
}

const names = { 'example.test': ['127.0.0.1'], 'evil.test': ['10.0.0.1'], 'metadata.test': ['169.254.169.254'] };

function contextWith(signal = new AbortController().signal) {
  return {
    conversationId: 'c',
    guildId: null,
    channelId: null,
    requester: { id: 'u', displayName: 'Ada', isModerator: false },
    logger: silentLogger,
    signal,
  };
}

/** The tool as tests use it: the fake resolver, and 127.0.0.1 let through by the explicit test-only allowance. */
function tool(options: FetchUrlOptions = {}) {
  return fromZodTool(
    fetchUrlTool({ resolve: fakeResolver(names).resolve, testOnlyAllowAddresses: ['127.0.0.1'], ...options }),
  );
}

function fetchWith(options: FetchUrlOptions, url: string, signal?: AbortSignal): Promise<string> {
  return tool(options).execute({ url }, contextWith(signal)) as Promise<string>;
}

const fetchText = (url: string) => fetchWith({}, url);

let server: WebServer;
let other: WebServer | undefined;
beforeEach(async () => {
  server = await startWebServer('127.0.0.1');
});
afterEach(async () => {
  await server.close();
  await other?.close();
  other = undefined;
});

/** A second server on 127.0.0.2, the same port: an address the allowance does not cover. */
async function startOther(): Promise<WebServer> {
  other = await startWebServer('127.0.0.2', server.port);
  other.route('/', (_request, response) => response.end('you should not be here'));
  other.route('/next', (_request, response) => response.end('you should not be here'));
  return other;
}

const page = `<!doctype html><html><head><title>Tea &amp; Biscuits</title><style>body { color: red }</style>
<script>window.secret = "script text"</script></head><body><h1>Tea</h1><p>Brew for <b>three</b> minutes.
See <a href="/about">the about page</a> or <a href="#top">the top</a>.</p><img src="/kettle.png" alt="a kettle">
<ul><li>Assam</li><li>Darjeeling</li></ul></body></html>`;

describe('fetch_url', () => {
  it('is a built-in tool, listed after current_time, with a strict schema', () => {
    expect(builtInTools.map((definition) => definition.name)).toEqual(['calculator', 'current_time', 'fetch_url']);
    const runtime = fromZodTool(fetchUrl);
    expect(runtime.spec.function.strict).toBe(true);
    expect(runtime.validate({ url: 'https://example.com/' }).ok).toBe(true);
    expect(runtime.validate({}).ok).toBe(false);
  });

  it('reads an HTML page as text with its title and final URL, sending our User-Agent, no fragment and no cookie', async () => {
    server.route('/tea?kind=black', (_request, response) =>
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page),
    );

    const text = await fetchText(server.url('/tea?kind=black#brewing', 'example.test'));

    const url = `http://example.test:${server.port}`;
    expect(text.split('\n').slice(0, 4)).toEqual([
      `URL: ${url}/tea?kind=black`,
      'Status: 200 OK',
      'Title: Tea & Biscuits',
      'Content-Type: text/html',
    ]);
    expect(text).toContain('Tea\n\nBrew for three minutes.');
    expect(text).toContain(`the about page [${url}/about]`);
    expect(text).toContain(' * Assam\n * Darjeeling');
    expect(text).not.toMatch(/script text|color: red|kettle|#top/);
    expect(server.requests).toHaveLength(1);
    const [seen] = server.requests;
    expect(seen!.path).toBe('/tea?kind=black');
    expect(seen!.headers).toMatchObject({
      host: `example.test:${server.port}`,
      'user-agent': expect.stringMatching(/^discord-agent-bot\//),
      accept: expect.stringContaining('text/html'),
      'accept-encoding': 'gzip, deflate, br',
    });
    expect(seen!.headers.cookie).toBeUndefined();
    expect(seen!.headers.authorization).toBeUndefined();
  });

  it('returns JSON and plain text as they are, decoded with the charset the server names or the page declares', async () => {
    server.route('/data.json', (_request, response) =>
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"tea":"earl grey","cups":2}'),
    );
    server.route('/latin.txt', (_request, response) =>
      response
        .writeHead(200, { 'Content-Type': 'text/plain; charset="windows-1252"' })
        .end(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80])),
    );
    server.route('/meta.html', (_request, response) =>
      response
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end(
          Buffer.concat([
            Buffer.from('<html><head><meta charset="iso-8859-1"></head><body><p>na'),
            Buffer.from([0xef]),
            Buffer.from('ve</p></body></html>'),
          ]),
        ),
    );
    server.route('/odd.txt', (_request, response) =>
      response.writeHead(200, { 'Content-Type': 'text/plain; charset=no-such-charset' }).end('déjà vu'),
    );

    expect(await fetchText(server.url('/data.json', 'example.test'))).toMatch(
      /Content-Type: application\/json\n\n\{"tea":"earl grey","cups":2\}$/,
    );
    expect(await fetchText(server.url('/latin.txt', 'example.test'))).toMatch(/\n\ncafé €$/);
    expect(await fetchText(server.url('/meta.html', 'example.test'))).toMatch(/\n\nnaïve$/);
    expect(await fetchText(server.url('/odd.txt', 'example.test'))).toMatch(/\n\ndéjà vu$/);
  });

  it('decompresses gzip, deflate and brotli bodies', async () => {
    const body = 'steeped leaves '.repeat(200).trim();
    const encoded = { gzip: gzipSync(body), deflate: deflateSync(body), br: brotliCompressSync(body) };
    for (const [encoding, bytes] of Object.entries(encoded)) {
      server.route(`/${encoding}`, (_request, response) =>
        response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': encoding }).end(bytes),
      );
      expect(await fetchText(server.url(`/${encoding}`, 'example.test'))).toMatch(new RegExp(`\\n\\n${body}$`));
    }
    server.route('/broken', (_request, response) =>
      response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' }).end('not gzip at all'),
    );
    await expect(fetchText(server.url('/broken', 'example.test'))).rejects.toMatchObject({
      code: 'fetch-bad-encoding',
    });
  });

  it('stops reading at the size cap, counted after decompression, so a huge body or a gzip bomb costs no more than the cap', async () => {
    server.route('/endless.txt', (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      writeRepeatedly(response, Buffer.alloc(16_384, 'a'), 3_200); // 50 MiB
    });
    server.route('/bomb.txt', (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' });
      const gzip = createGzip();
      gzip.pipe(response);
      response.on('close', () => gzip.destroy());
      writeRepeatedly(gzip, Buffer.alloc(1 << 20, 'b'), 50); // 50 MiB from about 50 KB on the wire
    });
    const options = { limits: { maxBytes: 100_000, maxChars: 200_000, timeoutMs: 10_000 } };

    for (const [path, letter] of [
      ['/endless.txt', 'a'],
      ['/bomb.txt', 'b'],
    ] as const) {
      const text = await fetchWith(options, server.url(path, 'example.test'));
      expect(text).toContain('Note: the body is longer than 100,000 bytes; only that much was read.');
      expect(text.endsWith(`\n\n${letter.repeat(100_000)}`)).toBe(true);
    }
  });

  it('cuts the text at the character cap and says how much there was', async () => {
    server.route('/long.txt', (_request, response) =>
      response.writeHead(200, { 'Content-Type': 'text/plain' }).end('0123456789'.repeat(50)),
    );

    const text = await fetchWith({ limits: { maxChars: 120 } }, server.url('/long.txt', 'example.test'));

    expect(text).toMatch(/\n\n(0123456789){12}\n\n\[Truncated: showing the first 120 of 500 characters\.\]$/);
  });

  it('reports a status other than 2xx plainly, with what the server said', async () => {
    server.route('/gone', (_request, response) =>
      response.writeHead(410, { 'Content-Type': 'text/html' }).end('<title>Gone</title><p>This tea was drunk.</p>'),
    );

    expect(await fetchText(server.url('/missing', 'example.test'))).toMatch(
      /^URL: .*\/missing\nStatus: 404 Not Found\nContent-Type: text\/plain\n\nno such page$/,
    );
    expect(await fetchText(server.url('/gone', 'example.test'))).toMatch(
      /Status: 410 Gone\nTitle: Gone\nContent-Type: text\/html\n\nThis tea was drunk\.$/,
    );
  });

  it('refuses binary content with a clear message, and sniffs a body that names no type', async () => {
    server.route('/kettle.png', (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'image/png' });
      writeRepeatedly(response, Buffer.alloc(16_384, 0x89), 3_200);
    });
    server.route('/blob', (_request, response) =>
      response.end(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0xff])),
    );
    server.route('/untyped', (_request, response) => response.end('just words'));

    await expect(fetchText(server.url('/kettle.png', 'example.test'))).rejects.toMatchObject({
      code: 'fetch-unreadable-type',
      userMessage: expect.stringContaining('is image/png, which I cannot read as text'),
    });
    await expect(fetchText(server.url('/blob', 'example.test'))).rejects.toMatchObject({
      code: 'fetch-unreadable-type',
      userMessage: expect.stringContaining('binary data'),
    });
    expect(await fetchText(server.url('/untyped', 'example.test'))).toMatch(/Status: 200 OK\n\njust words$/);
  });
});

describe('fetch_url reaches only public addresses', () => {
  it('follows redirects, relative ones too, without carrying cookies, and stops after the limit', async () => {
    server.route('/old', (_request, response) =>
      response.writeHead(302, { Location: '/moved', 'Set-Cookie': 'session=abc' }).end(),
    );
    server.route('/moved', (_request, response) =>
      response.writeHead(301, { Location: server.url('/new', 'example.test') }).end(),
    );
    server.route('/new', (_request, response) =>
      response.writeHead(200, { 'Content-Type': 'text/plain' }).end('fresh tea'),
    );
    server.route('/loop', (_request, response) => response.writeHead(307, { Location: '/loop' }).end());

    const text = await fetchText(server.url('/old', 'example.test'));

    expect(text).toMatch(
      new RegExp(
        `^URL: http://example.test:${server.port}/new \\(redirected from http://example.test:${server.port}/old\\)\\nStatus: 200 OK\\n`,
      ),
    );
    expect(text.endsWith('\n\nfresh tea')).toBe(true);
    expect(server.requests.map((request) => request.path)).toEqual(['/old', '/moved', '/new']);
    expect(server.requests.map((request) => request.headers.cookie)).toEqual([undefined, undefined, undefined]);

    await expect(fetchWith({ limits: { maxRedirects: 3 } }, server.url('/loop', 'example.test'))).rejects.toMatchObject(
      {
        code: 'fetch-too-many-redirects',
        userMessage: `http://example.test:${server.port}/loop redirected more than 3 times; I stopped following.`,
      },
    );
    expect(server.requests.filter((request) => request.path === '/loop')).toHaveLength(4);
  });

  it('notes the page read, and the address asked for when it redirected, as sources an answer may cite; a page it cannot read, none', async () => {
    server.route('/old', (_request, response) => response.writeHead(302, { Location: '/new' }).end());
    server.route('/new', (_request, response) => response.writeHead(200, { 'Content-Type': 'text/plain' }).end('tea'));
    server.route('/image', (_request, response) => response.writeHead(200, { 'Content-Type': 'image/png' }).end('png'));
    const noted: string[] = [];
    const context = { ...contextWith(), noteSource: (url: string) => void noted.push(url) };
    await tool().execute({ url: server.url('/old', 'example.test') }, context);
    expect(noted).toEqual([server.url('/new', 'example.test'), server.url('/old', 'example.test')]);
    noted.length = 0;
    await expect(tool().execute({ url: server.url('/image', 'example.test') }, context)).rejects.toMatchObject({
      code: 'fetch-unreadable-type',
    });
    expect(noted).toEqual([]);
  });

  it('checks every redirect: one into a private or metadata address, to another scheme or with credentials is refused, and nothing is sent there', async () => {
    const { resolve, calls } = fakeResolver(names);
    const privateServer = await startOther();
    const redirects = {
      '/to-loopback': `http://127.0.0.2:${server.port}/`,
      '/to-private-name': 'http://evil.test/',
      '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
      '/to-metadata-name': 'http://metadata.test/computeMetadata/v1/',
      '/to-file': 'file:///etc/passwd',
      '/to-credentials': `http://admin:secret@example.test:${server.port}/`,
    };
    for (const [path, location] of Object.entries(redirects))
      server.route(path, (_request, response) => response.writeHead(302, { Location: location }).end());
    // A short time limit, so that a broken check fails fast instead of waiting on 10.0.0.1.
    const attempt = (path: string) =>
      fetchWith({ resolve, limits: { timeoutMs: 3_000 } }, server.url(path, 'example.test'));

    await expect(attempt('/to-loopback')).rejects.toMatchObject({
      code: 'fetch-refused-address',
      userMessage: 'Refused: 127.0.0.2 is a loopback address; I fetch only from public internet addresses.',
    });
    await expect(attempt('/to-private-name')).rejects.toMatchObject({
      code: 'fetch-refused-address',
      userMessage: 'Refused: evil.test resolves to a private address; I fetch only from public internet addresses.',
    });
    await expect(attempt('/to-metadata')).rejects.toMatchObject({
      code: 'fetch-refused-address',
      userMessage: expect.stringContaining('169.254.169.254 is a cloud metadata address'),
    });
    await expect(attempt('/to-metadata-name')).rejects.toMatchObject({
      code: 'fetch-refused-address',
      userMessage: expect.stringContaining('metadata.test resolves to a cloud metadata address'),
    });
    await expect(attempt('/to-file')).rejects.toMatchObject({
      code: 'fetch-invalid-url',
      userMessage: expect.stringMatching(
        /redirected to file:\/\/\/etc\/passwd: I fetch only http:\/\/ and https:\/\/ URLs, not file:$/,
      ),
    });
    await expect(attempt('/to-credentials')).rejects.toMatchObject({
      code: 'fetch-invalid-url',
      userMessage: expect.stringContaining('has a user name or password in it'),
    });

    expect(privateServer.requests).toEqual([]);
    expect(calls).toEqual([
      'example.test',
      'example.test',
      'evil.test',
      'example.test',
      'example.test',
      'metadata.test',
      'example.test',
      'example.test',
    ]);
    expect(server.requests).toHaveLength(6);
  });

  it('refuses loopback in every spelling before connecting, when the test-only allowance is not given', async () => {
    const { resolve } = fakeResolver({ ...names, localhost: ['127.0.0.1', '::1'] });
    const spellings = [
      '127.0.0.1',
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      '127.1',
      '0x7f000001',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::1]',
      'localhost',
      'example.test',
    ];
    for (const spelling of spellings) {
      await expect(fetchWith({ resolve, testOnlyAllowAddresses: [] }, server.url('/', spelling))).rejects.toMatchObject(
        { code: 'fetch-refused-address', userMessage: expect.stringMatching(/^Refused: .* a loopback address;/) },
      );
    }
    // The default instance has no allowance either.
    await expect(fromZodTool(fetchUrl).execute({ url: server.url('/') }, contextWith())).rejects.toMatchObject({
      code: 'fetch-refused-address',
    });
    expect(server.requests).toEqual([]);
  });

  it('refuses a name when any one of its addresses is refused', async () => {
    const { resolve } = fakeResolver({
      'mixed.test': ['127.0.0.1', '10.1.2.3'],
      'mapped.test': ['::ffff:10.1.2.3'],
      'odd.test': ['0177.0.0.1'],
    });
    await expect(fetchWith({ resolve }, server.url('/', 'mixed.test'))).rejects.toMatchObject({
      code: 'fetch-refused-address',
      userMessage: expect.stringContaining('mixed.test resolves to a private address'),
      message: expect.stringContaining('10.1.2.3'),
    });
    await expect(fetchWith({ resolve }, server.url('/', 'mapped.test'))).rejects.toMatchObject({
      userMessage: expect.stringContaining('mapped.test resolves to a private address'),
    });
    await expect(fetchWith({ resolve, testOnlyAllowAddresses: [] }, server.url('/', 'odd.test'))).rejects.toMatchObject(
      { userMessage: expect.stringContaining('odd.test resolves to a loopback address') },
    );
    expect(server.requests).toEqual([]);
  });

  it('connects to the address it checked, so a DNS answer that changes after the check (rebinding) goes nowhere', async () => {
    const privateServer = await startOther();
    let answers = 0;
    // The first answer passes the check (127.0.0.1 stands in for a public address); every later one is refused.
    const rebinding = () => (answers++ === 0 ? ['127.0.0.1'] : ['127.0.0.2']);
    server.route('/', (_request, response) =>
      response.writeHead(200, { 'Content-Type': 'text/plain' }).end('checked server'),
    );
    server.route('/hop', (_request, response) => response.writeHead(302, { Location: '/next' }).end());
    const first = fakeResolver({ 'rebind.test': rebinding });

    expect(await fetchWith({ resolve: first.resolve }, server.url('/', 'rebind.test'))).toMatch(/\n\nchecked server$/);
    expect(first.calls).toEqual(['rebind.test']);

    answers = 0;
    const second = fakeResolver({ 'rebind.test': rebinding });
    await expect(fetchWith({ resolve: second.resolve }, server.url('/hop', 'rebind.test'))).rejects.toMatchObject({
      code: 'fetch-refused-address',
      userMessage: expect.stringContaining('rebind.test resolves to a loopback address'),
    });
    expect(second.calls).toEqual(['rebind.test', 'rebind.test']);

    expect(privateServer.requests).toEqual([]);
    expect(server.requests.map((request) => request.path)).toEqual(['/', '/hop']);
  });

  it('refuses what is not a public http(s) URL without resolving anything', async () => {
    const { resolve, calls } = fakeResolver(names);
    const refusals = [
      ['file:///etc/passwd', /not file:$/],
      ['ftp://example.test/tea.txt', /not ftp:$/],
      ['javascript:alert(1)', /not javascript:$/],
      ['data:text/plain,tea', /not data:$/],
      ['example.test/tea', /is not a valid URL; give a full http:\/\/ or https:\/\/ address/],
      ['http://', /is not a valid URL/],
      ['http://ada:hunter2@example.test/', /user name or password/],
    ] as const;
    for (const [url, message] of refusals) {
      await expect(fetchWith({ resolve }, url)).rejects.toMatchObject({
        code: 'fetch-invalid-url',
        userMessage: expect.stringMatching(message),
      });
    }
    expect(calls).toEqual([]);
  });

  it('gives up at the time limit on a server that does not answer or does not finish, and stops at once when the run is stopped', async () => {
    server.route('/silent', () => {});
    server.route('/trickle', (_request, response) =>
      response.writeHead(200, { 'Content-Type': 'text/plain' }).write('first sip'),
    );
    const quick = { limits: { timeoutMs: 300 } };

    await expect(fetchWith(quick, server.url('/silent', 'example.test'))).rejects.toMatchObject({
      code: 'fetch-timeout',
      userMessage: `http://example.test:${server.port}/silent did not finish within 0.3 seconds.`,
    });
    await expect(fetchWith(quick, server.url('/trickle', 'example.test'))).rejects.toMatchObject({
      code: 'fetch-timeout',
    });

    const stop = new AbortController();
    const reason = new Error('the run was stopped');
    setTimeout(() => stop.abort(reason), 100);
    const started = Date.now();
    await expect(fetchWith({}, server.url('/silent', 'example.test'), stop.signal)).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('says plainly when a name does not resolve or nothing listens', async () => {
    const closed = await startWebServer('127.0.0.1');
    await closed.close();

    await expect(fetchText('http://nowhere.test/')).rejects.toMatchObject({
      code: 'fetch-unresolved',
      userMessage: 'Could not find the host nowhere.test.',
    });
    await expect(fetchText(closed.url('/', 'example.test'))).rejects.toMatchObject({
      code: 'fetch-failed',
      userMessage: `Could not fetch http://example.test:${closed.port}/: the connection was refused.`,
    });
  });
});
