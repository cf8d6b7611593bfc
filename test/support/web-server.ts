import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';

/** A request as the server saw it. */
export interface SeenRequest {
  path: string;
  headers: IncomingHttpHeaders;
}

export type Route = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A small web server on a loopback address for fetch tests: routes by exact path (query
 * included), answers 404 otherwise, and records every request it receives.
 */
export interface WebServer {
  host: string;
  port: number;
  requests: SeenRequest[];
  route(path: string, handler: Route): void;
  /** `http://HOST:PORT/PATH` with the given host name (one the test resolver knows) or the address. */
  url(path: string, hostname?: string): string;
  close(): Promise<void>;
}

export async function startWebServer(host = '127.0.0.1', port = 0): Promise<WebServer> {
  const routes = new Map<string, Route>();
  const requests: SeenRequest[] = [];
  const server = createServer((request, response) => {
    requests.push({ path: request.url ?? '', headers: request.headers });
    response.on('error', () => {});
    const handler = routes.get(request.url ?? '');
    if (handler) handler(request, response);
    else response.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such page');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    host,
    port: bound,
    requests,
    route: (path, handler) => void routes.set(path, handler),
    url: (path, hostname = host) => `http://${hostname}:${bound}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Writes `chunk` `times` times, as fast as the reader takes it, then ends; stops early if the
 * connection closes. A body far bigger than any cap under test, yet bounded, so that a reader
 * that ignores its cap fails its test instead of filling memory.
 */
export function writeRepeatedly(stream: Writable, chunk: Buffer, times: number): void {
  let left = times;
  let open = true;
  stream.on('close', () => (open = false));
  stream.on('error', () => (open = false));
  const write = () => {
    while (open && left > 0) {
      left -= 1;
      if (!stream.write(chunk)) return;
    }
    if (open && left === 0) stream.end();
  };
  stream.on('drain', write);
  write();
}
