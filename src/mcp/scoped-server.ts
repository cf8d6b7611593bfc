/**
 * An MCP server with `scope: "server"` or `"conversation"` in MCP_CONFIG: one session (a process of
 * its own over stdio, an MCP session of its own over HTTP) per Discord server or per conversation,
 * so that what one server's members write, another's never read. A session starts at its scope's
 * first tool call, stops after `idleMinutes` unused, and at most `maxSessions` run at once. A stdio
 * session works in a directory of its own (`<root>/<scope key>`) and is told its scope in
 * `MCP_SCOPE_ID` and `MCP_SCOPE_DIR`. The tools are known from a listing session started with the
 * bot, which is never called and stops when idle as the others do.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../agent/logger.ts';
import type { RuntimeTool, ToolContext, ToolServerStatus } from '../agent/tool.ts';
import { UserFacingError } from '../agent/errors.ts';
import { type McpScoping, type McpServerConfig, scopeMarker } from './mcp-config.ts';
import { McpConnection, type McpTimings } from './mcp-connection.ts';
import type { ResourceContents } from './mcp-resources.ts';
import type { CallResult } from './mcp-tool-results.ts';
import { scopeKey } from './scope-key.ts';

interface Session {
  connection: McpConnection;
  /** Calls in flight: a session is stopped only when it has none. */
  calls: number;
  idleTimer: NodeJS.Timeout | null;
}

/** The key of the session that lists the tools (no scope key looks like it: they start with a word and a dash). */
const listingKey = 'listing';

export class ScopedMcpServer {
  readonly name: string;
  readonly moderatorOnly: boolean;
  private readonly scoping: McpScoping;
  private readonly lister: Session;
  private readonly sessions = new Map<string, Session>();
  private listed = false;

  /** `root`: where the sessions' working directories are made (the entry's `cwd`, when it has one). */
  constructor(
    private readonly config: McpServerConfig & { scoping: McpScoping },
    private readonly logger: Logger,
    private readonly root: string,
    private readonly timings?: McpTimings,
  ) {
    this.name = config.name;
    this.moderatorOnly = config.moderatorOnly;
    this.scoping = config.scoping;
    this.lister = this.newSession(listingKey);
  }

  /** Up once its tools were listed: each scope's session then starts when first called. */
  status(): ToolServerStatus {
    return this.listed ? { state: 'up' } : this.lister.connection.status();
  }

  tools(): readonly RuntimeTool[] {
    return this.lister.connection.tools();
  }

  /** How many scopes have a session running now. */
  sessionCount(): number {
    return this.sessions.size;
  }

  async start(): Promise<void> {
    await this.lister.connection.start();
    this.whenIdle(this.lister, listingKey);
  }

  async close(): Promise<void> {
    const all = [this.lister, ...this.sessions.values()];
    this.sessions.clear();
    for (const session of all) if (session.idleTimer) clearTimeout(session.idleTimer);
    await Promise.all(all.map((session) => session.connection.close()));
  }

  /** A tool call, in the session of the caller's scope (started, if it is not running). */
  private call(tool: string, args: Record<string, unknown>, context: ToolContext): Promise<CallResult> {
    return this.inSession(context, (connection) => connection.call(tool, args, context));
  }

  /** A resource read, in the session of the caller's scope: what a scope's tools link to is in its session. */
  private read(uri: string, context: ToolContext): Promise<{ contents: ResourceContents[] }> {
    return this.inSession(context, (connection) => connection.readResource(uri, context));
  }

  private async inSession<T>(context: ToolContext, use: (connection: McpConnection) => Promise<T>): Promise<T> {
    const key = scopeKey(this.scoping.scope, context);
    const session = this.sessions.get(key) ?? this.startSession(key);
    session.calls += 1;
    if (session.idleTimer) clearTimeout(session.idleTimer);
    try {
      await session.connection.start();
      context.signal.throwIfAborted();
      return await use(session.connection);
    } finally {
      session.calls -= 1;
      if (session.calls === 0) this.whenIdle(session, key);
    }
  }

  private startSession(key: string): Session {
    if (this.sessions.size >= this.scoping.maxSessions) {
      const each = this.scoping.scope === 'server' ? 'Discord server' : 'conversation';
      this.logger.warn({ mcpServer: this.name, maxSessions: this.scoping.maxSessions }, 'MCP sessions full');
      throw new UserFacingError(
        'mcp_sessions_full',
        `the ${this.name} MCP server already runs as many sessions as it may (maxSessions: ${this.scoping.maxSessions}, one per ${each}); try again once one has been unused for ${this.scoping.idleMinutes} minutes`,
      );
    }
    const session = this.newSession(key);
    this.sessions.set(key, session);
    this.logger.info({ mcpServer: this.name, scopeKey: key, sessions: this.sessions.size }, 'MCP session starting');
    return session;
  }

  private newSession(key: string): Session {
    const config = sessionConfig(this.config, key, join(this.root, key));
    const connection = new McpConnection(config, this.logger, this.timings, undefined, {
      call: (tool, args, context) => this.call(tool, args, context),
      read: (uri, context) => this.read(uri, context),
    });
    return { connection, calls: 0, idleTimer: null };
  }

  /** Stops the session after `idleMinutes` without a call (the listing one, once it has listed). */
  private whenIdle(session: Session, key: string): void {
    if (session.idleTimer) clearTimeout(session.idleTimer);
    session.idleTimer = setTimeout(() => {
      session.idleTimer = null;
      if (session.calls > 0) return;
      if (session === this.lister) {
        if (this.lister.connection.status().state !== 'up') return this.whenIdle(session, key);
        this.listed = true;
      } else if (this.sessions.get(key) === session) this.sessions.delete(key);
      else return;
      this.logger.info({ mcpServer: this.name, scopeKey: key }, 'MCP session stopped: unused');
      void session.connection.close();
    }, this.scoping.idleMinutes * 60_000);
    session.idleTimer.unref();
  }
}

/**
 * A session's config: over stdio, its own working directory (made if missing) and its scope named in
 * `MCP_SCOPE_ID` and `MCP_SCOPE_DIR` (also where the entry's args and env wrote them); over HTTP, the
 * same server (a new client is a new MCP session).
 */
function sessionConfig(config: McpServerConfig, key: string, directory: string): McpServerConfig {
  if (config.transport === 'http') return config;
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const fill = (text: string) =>
    text.replaceAll(scopeMarker('MCP_SCOPE_ID'), key).replaceAll(scopeMarker('MCP_SCOPE_DIR'), directory);
  return {
    ...config,
    args: config.args.map(fill),
    env: {
      ...Object.fromEntries(Object.entries(config.env).map(([name, value]) => [name, fill(value)])),
      MCP_SCOPE_ID: key,
      MCP_SCOPE_DIR: directory,
    },
    cwd: directory,
  };
}
