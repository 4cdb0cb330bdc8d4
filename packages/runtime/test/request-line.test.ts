import t from 'tap';
import pino from 'pino';
import { createLogger } from '../src/log.js';
import { requestLineWriter, type RequestLine } from '../src/server/request-line.js';

const line: RequestLine = {
  req_id: 'abc-1',
  method: 'GET',
  path: '/proxy/npm/a"b\\c\u0002/é',
  status: 200,
  ms: 0.25,
  bytes: 10_240,
  ip: '::1',
  where: { registry: 'npm', kind: 'npm', route: 'tarball', group: 'g', member: undefined },
  cache: 'hit',
  code: undefined,
};
const asPinoObject = (l: RequestLine) => ({
  req_id: l.req_id,
  method: l.method,
  path: l.path,
  status: l.status,
  ms: l.ms,
  bytes: l.bytes,
  ip: l.ip,
  ...l.where,
  cache: l.cache,
  code: l.code,
});
/** A logger writing into `out`, with its info() and error() calls counted. */
function captured(make: (dest: pino.DestinationStream) => pino.Logger) {
  const out: string[] = [];
  const log = make({ write: (s: string) => void out.push(s) });
  const calls = { info: 0, error: 0 };
  const { info, error } = log;
  log.info = (...a: Parameters<typeof info>) => (calls.info++, info.apply(log, a));
  log.error = (...a: Parameters<typeof error>) => (calls.error++, error.apply(log, a));
  return { out, log, calls };
}
const withoutTime = (s: string) => JSON.parse(s.replace(/,"time":\d+/, '')) as unknown;

t.test("hub's logger: the request line is written without pino's log call, as pino writes it", async (t) => {
  const ours = captured((d) => createLogger({ level: 'info', destination: d }).child({}, { redact: [] }));
  requestLineWriter(ours.log)(line, false);
  t.equal(ours.calls.info, 0, 'built here, not through log.info');
  const theirs = captured((d) => createLogger({ level: 'info', destination: d }).child({}, { redact: [] }));
  theirs.log.info(asPinoObject(line), 'request');
  t.equal(ours.out.length, 1);
  t.equal(ours.out[0]!.replace(/"time":\d+/, ''), theirs.out[0]!.replace(/"time":\d+/, ''), 'byte for byte');
  t.match(withoutTime(ours.out[0]!), { msg: 'request', status: 200, route: 'tarball', group: 'g', cache: 'hit' });
  t.notOk('code' in (withoutTime(ours.out[0]!) as object), 'an absent member is left out');
});

t.test('error lines, a quieter level, an odd logger and a clashing member go through pino', async (t) => {
  const hub = captured((d) => createLogger({ level: 'info', destination: d }));
  const write = requestLineWriter(hub.log);
  write({ ...line, status: 502 }, true);
  t.equal(hub.calls.error, 1);
  t.match(withoutTime(hub.out[0]!), { level: 50, status: 502, msg: 'request' });
  write({ ...line, where: { registry: 'npm', path: 'other' } }, false);
  t.equal(hub.calls.info, 1, 'a where member named like a fixed one');
  t.match(withoutTime(hub.out[1]!), { path: 'other', registry: 'npm' });
  hub.log.level = 'warn';
  write(line, false);
  t.equal(hub.out.length, 2, 'info lines are not written at level warn');

  const mixed = captured((d) => pino({ mixin: () => ({ extra: 1 }) }, d));
  requestLineWriter(mixed.log)(line, false);
  t.equal(mixed.calls.info, 1, 'a mixin: pino writes the line');
  t.match(withoutTime(mixed.out[0]!), { extra: 1, req_id: 'abc-1', msg: 'request' });

  const prefixed = captured((d) => createLogger({ level: 'info', destination: d }).child({}, { msgPrefix: '[p] ' }));
  requestLineWriter(prefixed.log)(line, false);
  t.equal(prefixed.calls.info, 1, 'a message prefix: pino writes the line');
  t.match(withoutTime(prefixed.out[0]!), { msg: '[p] request' });
});
