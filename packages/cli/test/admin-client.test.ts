/**
 * The admin client against a stand-in server, for what a real hub does not do on demand: answers
 * that are not hub's JSON (a proxy's HTML page), a cursor that repeats, 429 with Retry-After, a
 * CSV export streamed to standard output, a reader that closes the pipe early. Issue 5, item 6.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { BIN, runHub } from './run-hub.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => void;

async function stub(t: Test, handler: Handler): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    seen.push(`${req.method} ${url.pathname}${url.search} ${req.headers.authorization ?? '-'}`);
    handler(req, res, url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

t.test('an answer that is not hub JSON: status and a short snippet, exit 1', async (t) => {
  const s = await stub(t, (_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html><body>\n<h1>502 Bad Gateway</h1>\n</body></html>');
  });
  const r = await runHub(['ip-blocks', 'list', '--url', s.url, '--token', 'tok']);
  t.equal(r.code, 1);
  t.equal(r.stderr, 'hub: HTTP 502 Bad Gateway: <html><body> <h1>502 Bad Gateway</h1> </body></html>\n');
  t.same(s.seen, ['GET /api/v1/admin/ip-blocks Bearer tok'], 'the token is sent as a bearer token');

  const ok = await stub(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>a login page</html>');
  });
  const notJson = await runHub(['blocks', 'list', '--url', ok.url]);
  t.equal(notJson.code, 1);
  t.match(
    notJson.stderr,
    /answered GET \/api\/v1\/admin\/blocks with something that is not JSON \(HTTP 200\); is --url a hub\?/,
  );
});

t.test('429: the server message and when to retry', async (t) => {
  const s = await stub(t, (_req, res) =>
    send(
      res,
      429,
      { error: { code: 'rate_limited', message: 'too many requests; retry in 7s', request_id: 'r-1' } },
      { 'retry-after': '7' },
    ),
  );
  const r = await runHub(['audit-log', '--url', s.url]);
  t.equal(r.code, 1);
  t.equal(r.stderr, 'hub: too many requests; retry in 7s (HTTP 429, rate_limited, request_id r-1) (retry after 7s)\n');
});

t.test('audit-log follows cursors and passes the filters; a repeated cursor stops it', async (t) => {
  const pages: Record<string, { entries: object[]; next_cursor: string | null }> = {
    '': { entries: [{ time: '2025-01-01T00:00:00Z', action: 'download', outcome: 'allowed' }], next_cursor: 'c1' },
    c1: {
      entries: [{ time: '2025-01-01T00:00:01Z', action: 'metadata', outcome: 'denied', code: 'forbidden' }],
      next_cursor: 'c2',
    },
    c2: { entries: [{ time: '2025-01-01T00:00:02Z', action: 'delete', outcome: 'allowed' }], next_cursor: null },
  };
  const s = await stub(t, (_req, res, url) => send(res, 200, pages[url.searchParams.get('cursor') ?? '']));
  const r = await runHub([
    'audit-log',
    '--url',
    s.url,
    '--denied-only',
    '--from',
    '2025-01-01',
    '--to',
    '2025-01-02T00:00:00+01:00',
    '--action',
    'download, metadata',
    '--ip',
    '::1',
    '--json',
  ]);
  t.equal(r.code, 0, r.stderr);
  t.same(JSON.parse(r.stdout), {
    entries: [...pages['']!.entries, ...pages.c1!.entries, ...pages.c2!.entries],
    next_cursor: null,
  });
  const q =
    '?denied=true&from=2025-01-01T00%3A00%3A00.000Z&to=2025-01-01T23%3A00%3A00.000Z&action=download%2Cmetadata&ip=%3A%3A1';
  t.same(
    s.seen.map((l) => l.split(' ')[1]),
    [`/api/v1/admin/audit-log${q}`, `/api/v1/admin/audit-log${q}&cursor=c1`, `/api/v1/admin/audit-log${q}&cursor=c2`],
    'the filters as the API query parameters, then each cursor',
  );

  const text = await runHub(['audit-log', '--url', s.url]);
  t.equal(text.code, 0);
  t.equal(
    text.stdout,
    [
      'TIME                  OUTCOME  ACTION    STATUS  CODE       USER  TOKEN  IP  REGISTRY  VIA_GROUP  PACKAGE  VERSION  DETAIL',
      '2025-01-01T00:00:00Z  allowed  download  -       -          -     -      -   -         -          -        -        -',
      '2025-01-01T00:00:01Z  denied   metadata  -       forbidden  -     -      -   -         -          -        -        -',
      '2025-01-01T00:00:02Z  allowed  delete    -       -          -     -      -   -         -          -        -        -',
      '',
    ].join('\n'),
    'a table, one line per entry',
  );

  const loop = await stub(t, (_req, res) => send(res, 200, { entries: [{ action: 'x' }], next_cursor: 'same' }));
  const looped = await runHub(['audit-log', '--url', loop.url]);
  t.equal(looped.code, 1);
  t.match(looped.stderr, /returned the cursor same twice; stopping after 2 entries/);
});

t.test('text from the server cannot drive the terminal: controls and bidi overrides are escaped', async (t) => {
  const evil = 'left-pad\u001b]0;pwned\u0007\u001b[2J\u202e';
  const s = await stub(t, (_req, res, url) =>
    url.pathname.endsWith('/blocks')
      ? send(res, 200, {
          blocks: [{ id: 1, registry: 'npm', package_name: evil, version: null, blocked_by: 'admin', reason: 'a\nb' }],
        })
      : send(res, 404, { error: { code: 'not_found', message: `no user "${evil}"`, request_id: 'r\u001b[31m' } }),
  );
  const listed = await runHub(['blocks', 'list', '--url', s.url]);
  t.equal(listed.code, 0);
  t.notMatch(listed.stdout, /[\u001b\u0007\u202e]/, 'no raw control characters');
  t.match(listed.stdout, 'left-pad\\u001b]0;pwned\\u0007\\u001b[2J\\u202e');
  t.match(listed.stdout, /admin\s+-\s+a b\n$/, 'a line break in a cell is a space');
  const refused = await runHub(['users', 'block', 'x', '--url', s.url]);
  t.equal(refused.code, 1);
  t.notMatch(refused.stderr, /[\u001b\u0007\u202e]/);
  const asJson = await runHub(['blocks', 'list', '--url', s.url, '--json']);
  t.equal(JSON.parse(asJson.stdout).blocks[0].package_name, evil, '--json keeps the exact value (JSON escapes it)');
});

t.test('export-audit-log streams to standard output, and a failed export leaves no file', async (t) => {
  const csv = `at,action,outcome\n${Array.from({ length: 20_000 }, (_, i) => `2025-01-01T00:00:00Z,download,"allowed, row ${i}"`).join('\n')}\n`;
  const s = await stub(t, (_req, res, url) => {
    if (url.searchParams.get('from')) {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.write(csv.slice(0, 1000));
      setTimeout(() => res.destroy(), 20);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/csv' });
    res.end(csv);
  });
  const r = await runHub(['export-audit-log', '--url', s.url, '--output', '-']);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, csv);
  t.match(s.seen[0], '/api/v1/admin/audit-log/export?format=csv ');

  const dir = t.testdir({});
  const cut = await runHub(['export-audit-log', '--url', s.url, '--from', '1h', '--output', `${dir}/a.csv`]);
  t.equal(cut.code, 1);
  t.match(cut.stderr, /^hub: the export was cut off/);
  t.same((await import('node:fs')).readdirSync(dir), [], 'neither the file nor a partial one');
});

t.test('a reader that closes the pipe early ends the command quietly', async (t) => {
  const entries = Array.from({ length: 50_000 }, (_, i) => ({
    time: `2025-01-01T00:00:00Z`,
    action: `a${i}`,
    outcome: 'allowed',
  }));
  const s = await stub(t, (_req, res) => send(res, 200, { entries, next_cursor: null }));
  const child = spawn(process.execPath, [BIN, 'audit-log', '--url', s.url], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  t.equal(code, 0);
  t.equal(stderr, '', 'no EPIPE stack');
});
