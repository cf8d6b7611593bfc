/**
 * One MCP server, kept running: started over stdio or reached over HTTP (streamable, or SSE) with the MCP
 * SDK, its tools listed (and listed again when it says they changed), restarted with backoff when
 * it fails to start, crashes or stops answering. It never takes the bot down: while it is down,
 * its tools answer "unavailable".
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../agent/logger.ts';
import type { RuntimeTool, ToolContext, ToolServer, ToolServerStatus } from '../agent/tool.ts';
import { connectionProblem, errorMessage, UserFacingError } from '../agent/errors.ts';
import { maskWith } from '../text/mask-secrets.ts';
import { truncateLine } from '../text/truncate.ts';
import { answerElicitations, type CallInFlight, elicitationCapability, openLinksFirst } from './elicitation.ts';
import { callOptions, maxReasonLength, requestFailed, unavailable } from './mcp-request.ts';
import { connectOverHttp } from './http-connect.ts';
import { CallStreams } from './call-streams.ts';
import { logServerMessages } from './server-log.ts';
import type { StderrTail } from './stderr-log.ts';
import { stdioTransport } from './stdio-transport.ts';
import type { McpServerConfig } from './mcp-config.ts';
import type { ReadResource, ResourceContents } from './mcp-resources.ts';
import type { CallResult } from './mcp-tool-results.ts';
import { type CallTool, type ListedTool, listAllTools, toolsFromListing } from './mcp-tools.ts';

export interface McpTimings {
  /** How long starting a server and listing its tools may take. */
  startTimeoutMs: number;
  /** How long a server has to answer a ping after a call timed out, before it is restarted. */
  pingTimeoutMs: number;
  /** The first wait before a restart; it doubles with each failure in a row, up to `maxBackoffMs`. */
  firstBackoffMs: number;
  maxBackoffMs: number;
  /** Up this long, a server's next failure starts the backoff afresh. */
  stableAfterMs: number;
}

const defaultMcpTimings: McpTimings = {
  startTimeoutMs: 20_000,
  pingTimeoutMs: 5_000,
  firstBackoffMs: 1_000,
  maxBackoffMs: 60_000,
  stableAfterMs: 60_000,
};

export class McpConnection implements ToolServer {
  readonly name: string;
  readonly moderatorOnly: boolean;
  private state: ToolServerStatus = { state: 'starting' };
  private listed: RuntimeTool[] = [];
  private client: Client | null = null;
  /** The client of an attempt in progress, so that closing can end it too. */
  private connecting: Client | null = null;
  private failures = 0;
  private upSince = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private firstAttempt: Promise<void> | null = null;
  /** The end of the stderr of the attempt in progress (a stdio server's), for the reason it failed. */
  private stderrTail: StderrTail | null = null;
  /** The last transport error of the attempt in progress (stdout that is not JSON-RPC). */
  private transportError: Error | null = null;
  /** The calls in flight, so that a request for input (elicitation) reaches the person behind its call. */
  private readonly calls = new Set<CallInFlight>();
  /** Over streamable HTTP, which call's stream brought a server's request (call-streams.ts). */
  private readonly streams = new CallStreams();
  /**
   * Takes the server's secrets (its env and headers) out of a reason before it is cut, logged or
   * shown: a server, or a proxy before it, may echo its request's headers in an error.
   */
  private readonly masked: (text: string) => string;

  constructor(
    private readonly config: McpServerConfig,
    private readonly logger: Logger,
    private readonly timings: McpTimings = defaultMcpTimings,
    private readonly clientInfo = { name: 'discord-agent-bot', version: '1.0.0' },
    /** Where its tools' calls and reads go: this server, unless a scoped server routes them to a session. */
    private readonly route?: { call: CallTool; read: ReadResource },
  ) {
    this.name = config.name;
    this.moderatorOnly = config.moderatorOnly;
    const secrets = Object.values(config.transport === 'http' ? config.headers : config.env);
    this.masked = maskWith(secrets);
  }

  status(): ToolServerStatus {
    return this.state;
  }

  /** The tools of the last listing; kept while the server is down, so that they answer "unavailable". */
  tools(): readonly RuntimeTool[] {
    return this.listed;
  }

  /** Starts the server; resolves after the first attempt, up or not (a failure is retried in the background). */
  start(): Promise<void> {
    this.firstAttempt ??= this.connect();
    return this.firstAttempt;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const clients = [this.client, this.connecting].filter((client) => client !== null);
    this.client = null;
    this.connecting = null;
    this.state = { state: 'down', reason: 'the bot is shutting down' };
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  }

  /** Calls one of the server's tools, by its own name, bounded by the context's signal. */
  async call(tool: string, args: Record<string, unknown>, context: ToolContext): Promise<CallResult> {
    // In flight, so that a request for input (elicitation) reaches the person behind this call.
    const inFlight = { tool, context };
    this.calls.add(inFlight);
    try {
      return await this.request(`run ${tool}`, context, async (client) => {
        const send = () =>
          this.streams.within(
            inFlight,
            async () =>
              (await client.callTool(
                { name: tool, arguments: args },
                undefined,
                callOptions(context, this.masked),
              )) as CallResult,
          );
        try {
          return await send();
        } catch (error) {
          if (!(error instanceof UrlElicitationRequiredError)) throw error;
          // Each link opened by the asker first, then the call once more, as the spec lets a client.
          await openLinksFirst(this.name, tool, error, context);
          return send();
        }
      });
    } finally {
      this.calls.delete(inFlight);
    }
  }

  /** Reads one of the server's resources (`resources/read`), bounded by the context's signal. */
  async readResource(uri: string, context: ToolContext): Promise<{ contents: ResourceContents[] }> {
    return this.request(`read ${uri}`, context, (client) =>
      client.readResource({ uri }, callOptions(context, this.masked)),
    );
  }

  /** A request to the server while it is up; its failures told as people should hear them. */
  private async request<T>(what: string, context: ToolContext, send: (client: Client) => Promise<T>): Promise<T> {
    const client = this.client;
    if (this.state.state !== 'up' || client === null) throw unavailable(this.name, this.state);
    try {
      return await send(client);
    } catch (error) {
      if (context.signal.aborted) {
        // A call that ran out of time may mean a hung server: one that does not answer a ping is restarted.
        void this.checkAlive(client);
        throw error;
      }
      // The bot's own word on the call (a link the asker did not open): said as it is.
      if (error instanceof UserFacingError) throw error;
      const lost = this.client !== client || this.state.state !== 'up';
      // Not an answer from the server (a refused connection, an HTTP error, a lost session): it may be gone.
      if (!this.closed && !lost && !(error instanceof McpError)) void this.checkAlive(client);
      throw requestFailed(this.name, what, error, this.closed ? 'closed' : lost ? 'lost' : 'failed', this.masked);
    }
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    // A retry keeps saying why the last attempt failed (/help, doctor) until one succeeds.
    if (this.state.state !== 'down') this.state = { state: 'starting' };
    this.transportError = null;
    this.logger.debug({ mcpServer: this.name, failuresInARow: this.failures }, 'MCP server starting');
    const first = this.newClient();
    this.connecting = first;
    // One deadline for the whole attempt: starting, initializing and every page of the listing.
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      void this.connecting?.close();
    }, this.timings.startTimeoutMs);
    const options = { timeout: this.timings.startTimeoutMs };
    try {
      const client = await this.initialize(first, options);
      const tools = await listAllTools(client, options);
      if (this.closed) {
        await client.close();
        return;
      }
      this.connecting = null;
      this.client = client;
      this.useListing(tools, client);
      this.state = { state: 'up' };
      this.upSince = Date.now();
      this.logger.info({ mcpServer: this.name, tools: this.listed.map((tool) => tool.name) }, 'MCP server ready');
    } catch (error) {
      const attempt = this.connecting ?? first;
      this.connecting = null;
      await attempt.close().catch(() => undefined);
      this.failed(this.startFailure(timedOut, error));
    } finally {
      clearTimeout(deadline);
    }
  }

  /**
   * Why an attempt to start failed, in one line: the error a stdio server printed (Node's "Error:
   * Cannot find module …", not the stack's tail), what a refused connection was refused with
   * (ECONNREFUSED, not "fetch failed"), or what it wrote on stdout that is not MCP's JSON-RPC.
   */
  private startFailure(timedOut: boolean, error: unknown): string {
    const stderr = this.stderrTail?.text();
    // What it wrote to stderr comes first: the reason shown is cut short, and that is the real one.
    const said = stderr ? ` (its stderr ended with: ${stderr})` : '';
    if (!timedOut) return `it could not be started${said}: ${connectionProblem(error)}`;
    const stdout = this.transportError
      ? `: what it wrote on stdout is not MCP's JSON-RPC (${truncateLine(errorMessage(this.transportError), 120)})`
      : '';
    return `it did not start within ${this.timings.startTimeoutMs / 1000} s${stdout}${said}`;
  }

  /** A client for one attempt; what it hears counts only while it is the connection's client. */
  private newClient(): Client {
    const client = new Client(this.clientInfo, {
      capabilities: elicitationCapability,
      listChanged: {
        tools: {
          // The SDK's own refresh reads the first page only: every page is listed here.
          autoRefresh: false,
          onChanged: () => {
            if (this.client === client) void this.relist(client);
          },
        },
      },
    });
    client.onclose = () => {
      if (this.client === client) this.lost('it exited or closed the connection');
    };
    client.onerror = (error) => {
      // Kept while it starts: a line on stdout that is not JSON (a SyntaxError) or not JSON-RPC (the
      // SDK's schema refuses it: a ZodError) is what a server writing text there looks like.
      const unreadable = error instanceof SyntaxError || error.name === 'ZodError';
      if (this.connecting === client && unreadable) this.transportError = error;
      this.logger.debug({ mcpServer: this.name, err: error }, 'MCP transport error');
    };
    logServerMessages(client, this.logger, this.name, this.masked);
    answerElicitations(client, this.name, { inFlight: this.calls, of: (id) => this.streams.callOf(id) }, this.logger);
    return client;
  }

  /** Connects `first` (initialize and all); over HTTP, maybe another client after a fall back to SSE. */
  private async initialize(first: Client, options: { timeout: number }): Promise<Client> {
    if (this.config.transport === 'stdio') {
      const { transport, stderr } = stdioTransport(this.config, this.logger, this.masked);
      this.stderrTail = stderr;
      await first.connect(transport, options);
      return first;
    }
    this.stderrTail = null;
    return connectOverHttp(this.config, first, () => this.fallbackClient(), { ...options, fetch: this.streams.fetch });
  }

  private fallbackClient(): Client {
    if (this.closed) throw new Error('the bot is shutting down');
    this.logger.info(
      { mcpServer: this.name },
      'MCP server refused streamable HTTP: trying the older HTTP+SSE transport (set "type": "sse" to go straight to it)',
    );
    const client = this.newClient();
    this.connecting = client;
    return client;
  }

  /** Lists the tools again after the server said they changed. */
  private async relist(client: Client): Promise<void> {
    try {
      const tools = await listAllTools(client, { timeout: this.timings.startTimeoutMs });
      if (this.client === client) this.useListing(tools, client);
    } catch (error) {
      if (this.client === client)
        this.logger.warn(
          { mcpServer: this.name, err: error },
          'MCP server said its tools changed, but listing them failed',
        );
    }
  }

  /** The tools listed, and `read_resource` when the server declares resources (its `initialize` capabilities). */
  private useListing(listed: ListedTool[], client: Client): void {
    const { tools, leftOut } = toolsFromListing(
      this.config,
      listed,
      this.route?.call ?? ((tool, args, context) => this.call(tool, args, context)),
      client.getServerCapabilities()?.resources
        ? (this.route?.read ?? ((uri, context) => this.readResource(uri, context)))
        : undefined,
    );
    for (const { tool, reason } of leftOut)
      this.logger.warn({ mcpServer: this.name, tool, reason }, 'MCP tool left out');
    this.listed = tools;
  }

  private async checkAlive(client: Client): Promise<void> {
    try {
      await client.ping({ timeout: this.timings.pingTimeoutMs });
      this.logger.debug({ mcpServer: this.name }, 'MCP server answered the ping: kept');
    } catch {
      if (this.client !== client) return;
      this.logger.warn(
        { mcpServer: this.name, pingTimeoutMs: this.timings.pingTimeoutMs },
        'MCP server stopped answering: restarting it',
      );
      this.client = null;
      this.failed('it stopped answering');
      await client.close().catch(() => undefined);
    }
  }

  private lost(reason: string): void {
    this.client = null;
    if (Date.now() - this.upSince >= this.timings.stableAfterMs) this.failures = 0;
    this.failed(reason);
  }

  private failed(unmasked: string): void {
    if (this.closed) return;
    const reason = this.masked(unmasked);
    const waitMs = Math.min(this.timings.firstBackoffMs * 2 ** this.failures, this.timings.maxBackoffMs);
    this.failures += 1;
    this.state = { state: 'down', reason: `${truncateLine(reason, maxReasonLength)}; restarting` };
    this.logger.warn(
      { mcpServer: this.name, reason, retryInMs: waitMs, failuresInARow: this.failures },
      'MCP server down',
    );
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      void this.connect();
    }, waitMs);
    this.restartTimer.unref();
  }
}
