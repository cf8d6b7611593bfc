/**
 * The fake's gateway: JSON over WebSocket, no compression. HELLO, HEARTBEAT_ACK, IDENTIFY → READY
 * and GUILD_CREATE, RESUME → the missed dispatches and RESUMED, sessions that survive a dropped
 * socket, sharding (IDENTIFY's `shard: [id, count]`: each guild's events go to its shard's session
 * only, the rest to shard 0, as Discord routes them), intents (events the bot did not ask for are not sent; without MessageContent, message
 * text is blanked as Discord does) and Discord's close codes.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayDispatchEvents, GatewayIntentBits, GatewayOpcodes } from 'discord.js';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import type { DispatchRecord, GatewayPayloadRecord } from './types.ts';
import { shardOf } from './world.ts';

export interface GatewayOptions {
  token: string;
  botId: string;
  heartbeatIntervalMs: number;
  disallowMessageContent: boolean;
  /** READY's payload for a new session of a shard (the gateway adds nothing to it). */
  ready(sessionId: string, shard: [number, number]): unknown;
  /** The dispatches that follow READY on a new session of a shard (its guilds' GUILD_CREATE). */
  initialDispatches(shard: [number, number]): DispatchRecord[];
  problem(message: string): void;
  changed(): void;
}

interface Session {
  id: string;
  /** `[shard id, shard count]` from IDENTIFY; `[0, 1]` when not sharded. */
  shard: [number, number];
  intents: number;
  seq: number;
  /** Dispatches after READY, kept for RESUME. */
  log: { s: number; t: string; d: unknown }[];
  socket: WebSocket | null;
}

/** Close codes Discord uses (https://discord.com/developers/docs/topics/opcodes-and-status-codes). */
export const closeCodes = {
  unknownError: 4000,
  unknownOpcode: 4001,
  decodeError: 4002,
  notAuthenticated: 4003,
  authenticationFailed: 4004,
  alreadyAuthenticated: 4005,
  invalidShard: 4010,
  disallowedIntents: 4014,
} as const;

export class FakeGateway {
  readonly payloads: GatewayPayloadRecord[] = [];
  readonly dispatches: DispatchRecord[] = [];
  private readonly server = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly sessions = new Map<string, Session>();
  private readonly sockets = new Set<WebSocket>();
  private sessionCounter = 0;

  constructor(private readonly options: GatewayOptions) {}

  /** Takes over an HTTP upgrade request for the gateway path. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const query = new URL(request.url ?? '/', 'http://localhost').searchParams;
    if (query.get('v') !== '10') this.options.problem(`gateway: connected with v=${query.get('v')}, expected 10`);
    if (query.get('encoding') !== 'json')
      this.options.problem(`gateway: encoding=${query.get('encoding')}; the fake speaks json only`);
    if (query.has('compress'))
      this.options.problem(
        `gateway: compress=${query.get('compress')} asked for (is zlib-sync installed?); the fake never compresses`,
      );
    this.server.handleUpgrade(request, socket, head, (ws) => this.accept(ws));
  }

  private accept(socket: WebSocket): void {
    this.sockets.add(socket);
    let session: Session | undefined;
    socket.on('close', (code) => {
      this.sockets.delete(socket);
      if (session?.socket === socket) session.socket = null;
      // A normal closure ends the session on Discord; other codes leave it resumable.
      if (session && (code === 1000 || code === 1001)) this.sessions.delete(session.id);
      this.options.changed();
    });
    socket.on('message', (data) => {
      let payload: { op?: unknown; d?: unknown };
      try {
        payload = JSON.parse(frameText(data)) as { op?: unknown; d?: unknown };
      } catch {
        this.options.problem(`gateway: a frame that is not JSON: ${frameText(data).slice(0, 100)}`);
        return socket.close(closeCodes.decodeError, 'Error while decoding payload.');
      }
      this.payloads.push({ op: Number(payload.op), d: payload.d, time: performance.now() });
      this.options.changed();
      switch (payload.op) {
        case GatewayOpcodes.Heartbeat:
          void send(socket, { op: GatewayOpcodes.HeartbeatAck });
          return;
        case GatewayOpcodes.Identify:
          if (session) return socket.close(closeCodes.alreadyAuthenticated, 'Already authenticated.');
          session = this.identify(socket, payload.d as IdentifyData);
          return;
        case GatewayOpcodes.Resume:
          if (session) return socket.close(closeCodes.alreadyAuthenticated, 'Already authenticated.');
          session = this.resume(socket, payload.d as ResumeData);
          return;
        case GatewayOpcodes.PresenceUpdate:
        case GatewayOpcodes.VoiceStateUpdate:
        case GatewayOpcodes.RequestGuildMembers:
          if (!session) socket.close(closeCodes.notAuthenticated, 'Not authenticated.');
          return;
        default:
          this.options.problem(`gateway: unknown opcode ${String(payload.op)}`);
          return socket.close(closeCodes.unknownOpcode, 'Unknown opcode.');
      }
    });
    void send(socket, { op: GatewayOpcodes.Hello, d: { heartbeat_interval: this.options.heartbeatIntervalMs } });
  }

  private identify(socket: WebSocket, data: IdentifyData): Session | undefined {
    if (data?.token !== this.options.token) {
      socket.close(closeCodes.authenticationFailed, 'Authentication failed.');
      return undefined;
    }
    const intents = Number(data.intents ?? 0);
    if (this.options.disallowMessageContent && (intents & GatewayIntentBits.MessageContent) !== 0) {
      socket.close(closeCodes.disallowedIntents, 'Disallowed intent(s).');
      return undefined;
    }
    if (data.compress === true)
      this.options.problem('gateway: IDENTIFY asked for compress: true; the fake never compresses');
    const shard = data.shard ?? [0, 1];
    if (!Array.isArray(shard) || !(shard[1] >= 1 && shard[0] >= 0 && shard[0] < shard[1])) {
      this.options.problem(`gateway: IDENTIFY with an invalid shard ${JSON.stringify(data.shard)}`);
      socket.close(closeCodes.invalidShard, 'Invalid shard.');
      return undefined;
    }
    const id = `fake-session-${++this.sessionCounter}`;
    const session: Session = { id, shard: [shard[0], shard[1]], intents, seq: 0, log: [], socket };
    this.sessions.set(id, session);
    void this.sendTo(session, GatewayDispatchEvents.Ready, this.options.ready(id, session.shard), false);
    for (const { t, d } of this.options.initialDispatches(session.shard)) void this.sendTo(session, t, d, true);
    return session;
  }

  private resume(socket: WebSocket, data: ResumeData): Session | undefined {
    const session = this.sessions.get(data?.session_id);
    if (session === undefined || data.token !== this.options.token) {
      // Not resumable: the client is to IDENTIFY again on a new connection.
      void send(socket, { op: GatewayOpcodes.InvalidSession, d: false });
      return undefined;
    }
    if (session.socket && session.socket !== socket)
      session.socket.close(closeCodes.unknownError, 'Session resumed elsewhere.');
    session.socket = socket;
    for (const entry of session.log) {
      if (entry.s > Number(data.seq ?? 0))
        void send(socket, { op: GatewayOpcodes.Dispatch, t: entry.t, s: entry.s, d: entry.d });
    }
    void this.sendTo(session, GatewayDispatchEvents.Resumed, {}, false);
    return session;
  }

  /**
   * Sends a dispatch to every session whose intents cover it (queued for a RESUME when its socket
   * is gone). Resolves once the frames are written.
   */
  async dispatch(t: string, data: unknown): Promise<void> {
    // A snapshot: the world's objects change later (edits, threads), a sent event does not.
    const d = structuredClone(data);
    const guildId = (d as { guild_id?: unknown }).guild_id;
    const owners = [...this.sessions.values()].filter((session) =>
      typeof guildId === 'string' ? shardOf(guildId, session.shard[1]) === session.shard[0] : session.shard[0] === 0,
    );
    this.dispatches.push({ t, d, shards: owners.map((session) => session.shard[0]) });
    const sent = owners.map((session) => this.sendTo(session, t, d, true));
    this.options.changed();
    await Promise.all(sent);
  }

  private sendTo(session: Session, t: string, d: unknown, logged: boolean): Promise<void> {
    const required = requiredIntent(t, d);
    if (required !== 0 && (session.intents & required) === 0) return Promise.resolve();
    const data = this.redactContent(t, d, session.intents);
    const s = ++session.seq;
    if (logged) session.log.push({ s, t, d: data });
    if (session.socket?.readyState !== WebSocket.OPEN) return Promise.resolve();
    return send(session.socket, { op: GatewayOpcodes.Dispatch, t, s, d: data });
  }

  /** Without the MessageContent intent, Discord blanks the text of messages that do not concern the bot. */
  private redactContent(t: string, d: unknown, intents: number): unknown {
    if (t !== GatewayDispatchEvents.MessageCreate && t !== GatewayDispatchEvents.MessageUpdate) return d;
    if ((intents & GatewayIntentBits.MessageContent) !== 0) return d;
    const message = d as { author?: { id: string }; mentions?: { id: string }[] };
    const botId = this.options.botId;
    if (message.author?.id === botId || message.mentions?.some((user) => user.id === botId)) return d;
    return { ...message, content: '', embeds: [], attachments: [], components: [], poll: undefined };
  }

  /** Closes every open socket with `code`; sessions stay, so the client can RESUME. */
  drop(code: number): void {
    for (const socket of this.sockets) socket.close(code, 'Dropped by the fake (test fault).');
  }

  /** The sessions identified so far (the shard each is, and whether its socket is open), oldest first. */
  sessionShards(): { shard: [number, number]; open: boolean }[] {
    return [...this.sessions.values()].map((session) => ({
      shard: session.shard,
      open: session.socket?.readyState === WebSocket.OPEN,
    }));
  }

  /** The number of sockets still open (a client that was not destroyed keeps one). */
  openSockets(): number {
    return [...this.sockets].filter((socket) => socket.readyState === WebSocket.OPEN).length;
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface IdentifyData {
  token?: string;
  intents?: number;
  compress?: boolean;
  shard?: [number, number];
}

interface ResumeData {
  token?: string;
  session_id: string;
  seq?: number;
}

/**
 * Writes a frame; resolves once it is written. It never rejects (a failed write shows as the socket
 * closing, which the client handles), and `ws` writes frames in the order they are sent, so replies
 * to the client are sent without waiting (`void send(...)`); only `dispatch` waits, for its caller.
 */
function send(socket: WebSocket, payload: object): Promise<void> {
  return new Promise((resolve) => socket.send(JSON.stringify(payload), () => resolve()));
}

/**
 * A frame's text. `ws` hands a message over as a Buffer, an ArrayBuffer or a list of fragments,
 * depending on `binaryType` (https://github.com/websockets/ws/blob/master/doc/ws.md#event-message).
 */
function frameText(data: RawData): string {
  const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
  return bytes.toString('utf8');
}

/** The intent an event needs (0: always sent). Guild events only: the fake has no DMs. */
function requiredIntent(t: string, d: unknown): number {
  if (t.startsWith('MESSAGE_')) {
    return (d as { guild_id?: string }).guild_id ? GatewayIntentBits.GuildMessages : GatewayIntentBits.DirectMessages;
  }
  if (t === GatewayDispatchEvents.TypingStart) return GatewayIntentBits.GuildMessageTyping;
  // A privileged intent: without it Discord sends a member's changes only to the member itself.
  if (t.startsWith('GUILD_MEMBER_')) return GatewayIntentBits.GuildMembers;
  if (t.startsWith('GUILD_') || t.startsWith('CHANNEL_') || t.startsWith('THREAD_')) return GatewayIntentBits.Guilds;
  return 0;
}
