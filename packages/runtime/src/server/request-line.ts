import pino, { type Logger } from 'pino';

/** One request line's members, in the order they are written; `where` (registry, kind, route, group...) after `ip`. */
export interface RequestLine {
  req_id: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  bytes: number;
  ip: string;
  where: Readonly<Record<string, string | undefined>>;
  cache: string | undefined;
  code: string | undefined;
}

const S = pino.symbols as unknown as Record<string, symbol>;
const FIXED = new Set(['req_id', 'method', 'path', 'status', 'ms', 'bytes', 'ip', 'cache', 'code']);
const INFO = 30;

type PinoInternals = Record<symbol, unknown> & Logger;

/**
 * Writes request lines (`msg: "request"`) through `log`. For a plain logger (no mixin, hooks, log formatter,
 * serializers, redaction, nested key or message prefix: hub's own) an info line's text is built here, byte for
 * byte what pino would write (checked once against pino's own serialiser), without pino's merge object, format
 * call and per-member escaping of the keys (issue 32); anything else, and every error line, goes through pino.
 */
export function requestLineWriter(log: Logger): (line: RequestLine, error: boolean) => void {
  const viaPino = (line: RequestLine, error: boolean) => {
    if (error) log.error(pinoLine(line), 'request');
    else log.info(pinoLine(line), 'request');
  };
  const l = log as PinoInternals;
  const formatters = l[S.formattersSym!] as { log?: unknown } | undefined;
  const hooks = l[S.hooksSym!] as { logMethod?: unknown; streamWrite?: unknown } | undefined;
  const stream = l[S.streamSym!] as { write(s: string): unknown; [k: symbol]: unknown } | undefined;
  // Serializers (pino's default one for `err`) apply to no fixed member; a `where` member they apply to goes via pino.
  const serializers = (l[S.serializersSym!] as object | undefined) ?? {};
  const errorKey = l[S.errorKeySym!];
  const plain =
    !l[S.mixinSym!] &&
    !formatters?.log &&
    !hooks?.logMethod &&
    !hooks?.streamWrite &&
    !l[S.nestedKeySym!] &&
    typeof l[S.msgPrefixSym!] !== 'string' &&
    [...FIXED].every((k) => !(k in serializers) && k !== errorKey) &&
    Object.keys((l[S.stringifiersSym!] as object | undefined) ?? {}).length === 0 &&
    !l[S.wildcardFirstSym!] &&
    stream !== undefined &&
    stream[S.needsMetadataGsym!] !== true &&
    typeof l[S.timeSym!] === 'function' &&
    typeof (l[S.lsCacheSym!] as Record<number, string> | undefined)?.[INFO] === 'string';
  if (!plain) return viaPino;
  const tail = `,${JSON.stringify(l[S.messageKeySym!] ?? 'msg')}:"request"${l[S.endSym!] as string}`;
  /** The line's text; undefined when a `where` member is named like a fixed one (pino keeps its place) or serialized. */
  const text = (line: RequestLine, time: string): string | undefined => {
    let s = `${(l[S.lsCacheSym!] as Record<number, string>)[INFO]}${time}${l[S.chindingsSym!] as string},"req_id":"${str(line.req_id)}","method":"${str(line.method)}","path":"${str(line.path)}","status":${num(line.status)},"ms":${num(line.ms)},"bytes":${num(line.bytes)},"ip":"${str(line.ip)}"`;
    for (const k in line.where) {
      const v = line.where[k];
      if (FIXED.has(k) || k in serializers || k === errorKey) return undefined;
      if (v !== undefined) s += `,"${str(k)}":"${str(v)}"`;
    }
    if (line.cache !== undefined) s += `,"cache":"${str(line.cache)}"`;
    if (line.code !== undefined) s += `,"code":"${str(line.code)}"`;
    return s + tail;
  };
  // The text must be pino's: a sample line (quotes, a backslash, a control character) is compared once.
  const sample: RequestLine = {
    req_id: 'a-1',
    method: 'GET',
    path: '/p/"x"\\y\u0001',
    status: 200,
    ms: 1.25,
    bytes: 10240,
    ip: '127.0.0.1',
    where: { registry: 'npm', kind: 'npm', route: 'tarball', group: undefined },
    cache: 'hit',
    code: undefined,
  };
  const expected = (l[S.asJsonSym!] as (o: object, m: string, n: number, t: string) => string).call(
    l,
    pinoLine(sample),
    'request',
    INFO,
    ',"time":1',
  );
  if (text(sample, ',"time":1') !== expected) return viaPino;
  const time = l[S.timeSym!] as () => string;
  return (line, error) => {
    if (error || log.levelVal > INFO) return viaPino(line, error);
    const s = text(line, time.call(l));
    if (s === undefined) viaPino(line, error);
    else stream.write(s);
  };
}

/** The line as pino's merge object, members in their order. */
const pinoLine = (line: RequestLine) => ({
  req_id: line.req_id,
  method: line.method,
  path: line.path,
  status: line.status,
  ms: line.ms,
  bytes: line.bytes,
  ip: line.ip,
  ...line.where,
  cache: line.cache,
  code: line.code,
});

const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;
/** A string's JSON text between its quotes, as pino writes it: most members need no escape and are used as they are. */
const str = (s: string): string => (NEEDS_ESCAPE.test(s) ? JSON.stringify(s).slice(1, -1) : s);

/** A number as pino writes it: not finite is null. */
const num = (n: number): string => (Number.isFinite(n) ? String(n) : 'null');
