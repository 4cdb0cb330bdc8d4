import net from 'node:net';
import tls from 'node:tls';

/**
 * A minimal Redis client (RESP2): just enough for the shared rate limiter. Commands are pipelined on
 * one connection and answered in order. A command that gets no answer in time, or a dropped
 * connection, fails every pending command and closes the socket; the next command reconnects, but
 * not more often than once per `reconnectDelayMs`, so an outage fails fast instead of queueing.
 */
export type RespValue = string | number | null | RespValue[];

export class RespError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RespError';
  }
}

export interface RespClientOptions {
  /** `redis://[user:password@]host[:port][/db]` or `rediss://` for TLS. */
  url: string;
  connectTimeoutMs?: number;
  commandTimeoutMs?: number;
  reconnectDelayMs?: number;
}

export interface RespClient {
  command(args: ReadonlyArray<string | number>): Promise<RespValue>;
  close(): Promise<void>;
}

interface Pending {
  resolve(v: RespValue): void;
  reject(e: Error): void;
}

export function encodeCommand(args: ReadonlyArray<string | number>): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const a of args) {
    const b = Buffer.from(String(a), 'utf8');
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/** Parses one reply at `offset`; undefined when the buffer does not hold all of it yet. */
export function parseReply(buf: Buffer, offset: number): { value: RespValue | RespError; next: number } | undefined {
  if (offset >= buf.length) return undefined;
  const eol = buf.indexOf('\r\n', offset);
  if (eol === -1) return undefined;
  const type = String.fromCharCode(buf[offset]!);
  const line = buf.toString('utf8', offset + 1, eol);
  const after = eol + 2;
  switch (type) {
    case '+':
      return { value: line, next: after };
    case '-':
      return { value: new RespError(line), next: after };
    case ':':
      return { value: Number(line), next: after };
    case '$': {
      const len = Number(line);
      if (len < 0) return { value: null, next: after };
      if (buf.length < after + len + 2) return undefined;
      return { value: buf.toString('utf8', after, after + len), next: after + len + 2 };
    }
    case '*': {
      const n = Number(line);
      if (n < 0) return { value: null, next: after };
      const items: RespValue[] = [];
      let at = after;
      for (let i = 0; i < n; i++) {
        const item = parseReply(buf, at);
        if (!item) return undefined;
        // An error inside an array (a script's error reply) is kept as its message.
        items.push(item.value instanceof RespError ? item.value.message : item.value);
        at = item.next;
      }
      return { value: items, next: at };
    }
    default:
      throw new RespError(`unexpected reply type ${JSON.stringify(type)}`);
  }
}

export function createRespClient(o: RespClientOptions): RespClient {
  const url = new URL(o.url);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error('the Redis URL must start with redis:// or rediss://');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || 6379);
  const db = url.pathname.replace(/^\//, '');
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const connectTimeoutMs = o.connectTimeoutMs ?? 1_000;
  const commandTimeoutMs = o.commandTimeoutMs ?? 500;
  const reconnectDelayMs = o.reconnectDelayMs ?? 1_000;

  let socket: net.Socket | undefined;
  let connecting: Promise<net.Socket> | undefined;
  let lastFailure = 0;
  let closed = false;
  let buffer: Buffer = Buffer.alloc(0);
  const pending: Pending[] = [];
  let timer: NodeJS.Timeout | undefined;

  function fail(s: net.Socket, e: Error, clean = false) {
    if (socket === s) socket = undefined;
    // A server closing an idle connection is no outage: reconnect at once next time.
    if (!clean || pending.length > 0) lastFailure = Date.now();
    s.destroy();
    buffer = Buffer.alloc(0);
    clearTimeout(timer);
    timer = undefined;
    for (const p of pending.splice(0)) p.reject(e);
  }

  function armTimer(s: net.Socket) {
    clearTimeout(timer);
    timer = pending.length ? setTimeout(() => fail(s, new RespError(`Redis did not answer within ${commandTimeoutMs} ms`)), commandTimeoutMs) : undefined;
  }

  function onData(s: net.Socket, chunk: Buffer) {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    let at = 0;
    for (;;) {
      let r: ReturnType<typeof parseReply>;
      try {
        r = parseReply(buffer, at);
      } catch (e) {
        fail(s, e as Error);
        return;
      }
      if (!r) break;
      at = r.next;
      const p = pending.shift();
      if (!p) {
        fail(s, new RespError('Redis sent a reply nobody asked for'));
        return;
      }
      if (r.value instanceof RespError) p.reject(r.value);
      else p.resolve(r.value);
    }
    buffer = at === buffer.length ? Buffer.alloc(0) : buffer.subarray(at);
    armTimer(s);
  }

  function send(s: net.Socket, args: ReadonlyArray<string | number>): Promise<RespValue> {
    return new Promise((resolve, reject) => {
      pending.push({ resolve, reject });
      s.write(encodeCommand(args));
      if (!timer) armTimer(s);
    });
  }

  function connect(): Promise<net.Socket> {
    return new Promise<net.Socket>((resolve, reject) => {
      const s = url.protocol === 'rediss:' ? tls.connect({ host, port, servername: host }) : net.connect({ host, port });
      s.setNoDelay(true);
      const timeout = setTimeout(() => s.destroy(new RespError(`could not connect to Redis within ${connectTimeoutMs} ms`)), connectTimeoutMs);
      s.once(url.protocol === 'rediss:' ? 'secureConnect' : 'connect', () => {
        clearTimeout(timeout);
        s.on('data', (c: Buffer) => onData(s, c));
        s.on('close', () => fail(s, new RespError('the Redis connection closed'), true));
        const hello: Promise<RespValue>[] = [];
        if (password) hello.push(send(s, username ? ['AUTH', username, password] : ['AUTH', password]));
        if (db) hello.push(send(s, ['SELECT', db]));
        Promise.all(hello).then(
          () => resolve(s),
          (e: Error) => {
            fail(s, e);
            reject(e);
          },
        );
      });
      // Always listened to: an unhandled socket error would end the process.
      s.on('error', (e) => {
        clearTimeout(timeout);
        fail(s, e);
        reject(e);
      });
    });
  }

  async function ready(): Promise<net.Socket> {
    if (closed) throw new RespError('the Redis client is closed');
    if (socket) return socket;
    if (!connecting) {
      if (Date.now() - lastFailure < reconnectDelayMs) throw new RespError('Redis is unreachable (waiting before reconnecting)');
      connecting = connect().then(
        (s) => {
          socket = s;
          connecting = undefined;
          return s;
        },
        (e: Error) => {
          lastFailure = Date.now();
          connecting = undefined;
          throw e;
        },
      );
    }
    return connecting;
  }

  return {
    async command(args) {
      return send(await ready(), args);
    },
    async close() {
      closed = true;
      const s = socket ?? (await connecting?.catch(() => undefined));
      if (s) {
        await send(s, ['QUIT']).catch(() => {});
        s.destroy();
      }
      socket = undefined;
    },
  };
}
