/**
 * The shape of a REST route and the table lookup. Handlers throw `DiscordHttpError` for Discord's
 * error answers; rest.ts runs every request through one pipeline before a handler sees it.
 */
import type { RequestSchema } from '../discord-conformance.ts';
import type { FakeGateway } from './gateway.ts';
import type { UploadedFile } from './messages.ts';
import type { World } from './world.ts';

/** What routes may use of the fake. */
export interface FakeServices {
  world: World;
  gateway: FakeGateway;
  /** http://127.0.0.1:PORT, for URLs the fake serves (attachments). */
  baseUrl: string;
  gatewayUrl: string;
  messageContentAllowed: boolean;
  /** Records a breach of Discord's rules that the route found (rest.ts records the spec's). */
  problem: (message: string) => void;
  /** What GET /gateway/bot recommends: the shard count, and how many shards may identify at once. */
  recommendedShards: number;
  maxConcurrency: number;
}

export interface RouteContext {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  files: UploadedFile[];
}

export interface RouteReply {
  /** 200 unless given; 204 sends no body. */
  status?: number;
  body?: unknown;
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Below /api/v10, with `:name` parameters: `/channels/:channelId/messages`. */
  pattern: string;
  /**
   * The spec's request schema for the body (a function when it depends on the target or on the
   * body itself; undefined then means the handler judges the body).
   */
  schema?: RequestSchema | ((params: Record<string, string>, body: unknown) => RequestSchema | undefined);
  /**
   * The body is a message the bot posts: our mention policy applies. A function picks the message
   * out of the body (an interaction callback's `data`), or returns undefined when there is none.
   */
  botMessage?: boolean | ((body: unknown, params: Record<string, string>) => unknown);
  /** Discord answers this route without a token. */
  noAuth?: boolean;
  handle(context: RouteContext): RouteReply | Promise<RouteReply>;
}

/** The route for `method path` and its parameters, if any matches. */
export function matchRoute(
  routes: Route[],
  method: string,
  path: string,
): { route: Route; params: Record<string, string> } | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const names: string[] = [];
    const source = route.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_all, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    const match = new RegExp(`^${source}$`).exec(path);
    if (match)
      return {
        route,
        params: Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1]!)])),
      };
  }
  return undefined;
}
