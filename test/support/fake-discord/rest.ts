/**
 * The ONE place every REST request goes through: record it, wait the latency, check the token,
 * check the body against Discord's spec and our rules, fire an armed fault, then run the route.
 * It also serves the files behind attachment URLs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { mentionPolicyProblems, specProblems } from '../discord-conformance.ts';
import type { Faults } from './faults.ts';
import {
  DiscordHttpError,
  entityTooLarge,
  invalidFormBody,
  missingAccess,
  notFound,
  unauthorized,
} from './http-errors.ts';
import type { UploadedFile } from './messages.ts';
import { matchRoute, type Route } from './routes.ts';
import type { RecordedRequest } from './types.ts';
import type { World } from './world.ts';

export interface RestOptions {
  world: World;
  routes: Route[];
  token: string;
  faults: Faults;
  requests: RecordedRequest[];
  latencyMs(): number;
  holdResponsesMs(): number;
  problem: (message: string) => void;
  changed(): void;
}

const apiPrefix = '/api/v10';

export function restHandler(options: RestOptions): (request: IncomingMessage, response: ServerResponse) => void {
  const { routes, faults, problem } = options;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const raw = await readRaw(request);
    if (url.pathname.startsWith('/attachments/')) return serveFile(options.world, url.pathname, response);
    if (!url.pathname.startsWith(`${apiPrefix}/`)) {
      problem(`REST: ${method} ${url.pathname} is not under ${apiPrefix} (give discord.js rest.api without /v10)`);
      return send(response, notFound().status, notFound().body);
    }
    const path = url.pathname.slice(apiPrefix.length);
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name, ([] as string[]).concat(value ?? []).join(', ')]),
    );
    const record: RecordedRequest = {
      method,
      path,
      query: Object.fromEntries(url.searchParams),
      body: undefined,
      headers,
      time: performance.now(),
    };
    options.requests.push(record);
    options.changed();

    let status = 500;
    try {
      const { body, files } = await parseBody(headers['content-type'], raw).catch((error: unknown) => {
        problem(`REST: ${method} ${path} sent a body that is not JSON: ${raw.toString('utf8').slice(0, 100)}`);
        throw error;
      });
      record.body = body;
      // Discord's upload limit, for a server without boosts: 10 MiB a request, else 413 with code 40005
      // (https://discord.com/developers/docs/reference#uploading-files).
      if (files.reduce((sum, file) => sum + file.body.length, 0) > uploadLimitBytes) throw entityTooLarge();
      const latency = options.latencyMs();
      if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));

      const matched = matchRoute(routes, method, path);
      if (matched === undefined) {
        problem(`REST: the fake has no route for ${method} ${path}`);
        throw notFound();
      }
      if (!matched.route.noAuth && headers.authorization !== `Bot ${options.token}`) throw unauthorized();
      if (!(headers['user-agent'] ?? '').startsWith('DiscordBot ('))
        problem(`REST: ${method} ${path} without Discord's "DiscordBot (url, version)" User-Agent`);
      checkBody(matched.route, matched.params, method, shortPath(path), body, problem);
      if (isAbsentPlace(options.world, matched.params)) throw missingAccess();

      const fault = faults.take(method, path);
      if (fault !== undefined && !fault.applied) {
        status = fault.status;
        return send(response, fault.status, fault.body, fault.headers);
      }
      const reply = await matched.route.handle({ params: matched.params, query: record.query, body, files });
      if (fault !== undefined) {
        // The request took effect, but the answer is lost (a proxy's 502 after Discord did the work).
        status = fault.status;
        return send(response, fault.status, fault.body, fault.headers);
      }
      await faults.takeHold(method, path, options.holdResponsesMs());
      status = reply.status ?? 200;
      send(response, status, reply.body);
    } catch (error) {
      if (error instanceof DiscordHttpError) {
        status = error.status;
        return send(response, error.status, error.body, error.headers);
      }
      problem(`REST: the fake failed on ${method} ${path}: ${(error as Error).stack ?? String(error)}`);
      send(response, 500, { message: '500: Internal Server Error', code: 0 });
    } finally {
      record.status = status;
      options.changed();
    }
  };
  // Node does not await a request listener, so a rejection (reading the body) would go unhandled: it
  // is recorded as a problem, unless the client went away before its request was whole.
  return (request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (request.complete) problem(`REST: the fake failed on ${request.method} ${request.url}: ${String(error)}`);
      response.destroy();
    });
  };
}

const uploadLimitBytes = 10 * 1024 * 1024;

/**
 * Whether a request names a channel or server the bot is not in (a user install's place): Discord
 * answers 403 Missing Access (50001) there, whatever the route.
 */
function isAbsentPlace(world: World, params: Record<string, string>): boolean {
  if (params.channelId !== undefined && world.absentPlaces.has(params.channelId)) return true;
  const guildId = params.guildId;
  return guildId !== undefined && [...world.absentPlaces.values()].some((place) => place.guildId === guildId);
}

/** Spec problems fail the request as Discord would (400 Invalid Form Body); policy problems do not. */
function checkBody(
  route: Route,
  params: Record<string, string>,
  method: string,
  path: string,
  body: unknown,
  problem: (message: string) => void,
): void {
  const message =
    typeof route.botMessage === 'function' ? route.botMessage(body, params) : route.botMessage ? body : undefined;
  if (message !== undefined)
    for (const policy of mentionPolicyProblems(message)) problem(`REST ${method} ${path}: ${policy}`);
  const schema = typeof route.schema === 'function' ? route.schema(params, body) : route.schema;
  if (schema === undefined) return;
  const problems = specProblems(schema, body);
  for (const message of problems) problem(`REST ${method} ${path}: ${message}`);
  if (problems.length > 0) throw invalidFormBody({ _body: problems.join('; ') });
}

/** The path for a problem's text, without the long interaction token in it. */
function shortPath(path: string): string {
  return path.replace(/\/[A-Za-z0-9_-]{64,}(?=\/|$)/g, '/{token}');
}

async function readRaw(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** JSON, or multipart with a `payload_json` part and `files[n]` parts (how discord.js uploads). */
async function parseBody(
  contentType: string | undefined,
  raw: Buffer,
): Promise<{ body: unknown; files: UploadedFile[] }> {
  if (raw.length === 0) return { body: undefined, files: [] };
  if (contentType?.startsWith('multipart/form-data')) {
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    const files: UploadedFile[] = [];
    let body: unknown;
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') {
        if (field === 'payload_json') body = JSON.parse(value);
        continue;
      }
      files.push({
        field,
        filename: value.name,
        contentType: value.type || 'application/octet-stream',
        body: Buffer.from(await value.arrayBuffer()),
      });
    }
    return { body, files };
  }
  try {
    return { body: JSON.parse(raw.toString('utf8')), files: [] };
  } catch {
    throw new DiscordHttpError(400, { message: 'The request body contains invalid JSON.', code: 50109 });
  }
}

function serveFile(world: World, path: string, response: ServerResponse): void {
  const file = world.files.get(path);
  world.filesServed.push(path);
  if (file === undefined) return send(response, 404, { message: '404: Not Found', code: 0 });
  const compressed = file.gzipCutTo === undefined ? undefined : gzipSync(file.body).subarray(0, file.gzipCutTo);
  const body = compressed ?? file.body;
  response.writeHead(200, {
    'content-type': file.contentType,
    'content-length': String(body.length),
    ...(compressed === undefined ? {} : { 'content-encoding': 'gzip' }),
  });
  response.end(body);
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (status === 204) {
    response.writeHead(204, headers);
    return void response.end();
  }
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body ?? {}));
}
