import path from 'node:path';
import t from 'tap';
import { defineKind, reply, type KindRoute } from '@hub/runtime';
import { kindConformance, type ConformanceTest, type KindConformanceSpec } from '../src/kind-conformance.js';

/**
 * A careless kind: its listing ignores unlisting, its file route names no coordinate (so the runtime
 * cannot refuse it before the handler runs), and nothing checks what the upstream sends.
 */
const listing: KindRoute = {
  id: 'versions',
  match: (s) => (s.length === 2 && s[1] === 'versions.json' ? { coordinate: { name: s[0]! } } : null),
  async handle(rc, m) {
    const doc = await rc.metadata({
      key: `versions:${m.coordinate!.name}`,
      url: `${rc.registry.upstream}/${m.coordinate!.name}/versions.json`,
    });
    return reply.bytes(doc.body, 'application/json');
  },
};
const file: KindRoute = {
  id: 'file',
  match: (s) => (s.length === 3 ? { params: { name: s[0]!, version: s[1]!, file: s[2]! } } : null),
  async handle(rc, m) {
    const { name, version, file } = m.params as { name: string; version: string; file: string };
    const res = await rc.upstream.request(`${rc.registry.upstream}/${name}/${version}/${file}`);
    const chunks: Buffer[] = [];
    for await (const c of res.body) chunks.push(c as Buffer);
    return reply.bytes(Buffer.concat(chunks), 'application/octet-stream');
  },
};
const careless = defineKind({
  id: 'careless',
  contract: 1,
  addressing: 'package',
  description: 'a kind that gets the generic duties wrong',
  coordinate: {
    // Folds the name without saying so (no normalizeName): "Tool" comes back as "tool".
    parse(text) {
      const [name, version] = text.split('@');
      return version ? { name: name!.toLowerCase(), version } : { name: name!.toLowerCase() };
    },
    format: (c) => (c.version ? `${c.name}@${c.version}` : c.name),
    // Not idempotent: each call adds another `.0`.
    canonicalVersion: (v) => `${v}.0`,
  },
  routes: [listing, file],
  probe: async (_pc, _name, versions) =>
    versions.map((version) => ({ version, answer: 'absent' as const, rung: 'listing' })),
});

/** A ConformanceTest that records failed assertions instead of failing this file, with real test folders. */
function recorder(
  dir: string,
  prefix = '',
): { t: ConformanceTest; failures: string[]; skips: string[]; close(): Promise<void> } {
  const failures: string[] = [];
  const skips: string[] = [];
  const teardowns: Array<() => unknown> = [];
  let dirs = 0;
  const check = (pass: boolean, message: string) => void (pass || failures.push(`${prefix}${message}`));
  const rec: ConformanceTest = {
    async test(name, extra, fn) {
      if (extra.skip !== undefined) return void skips.push(`${name}: ${extra.skip}`);
      const child = recorder(dir, `${name} > `);
      try {
        await fn(child.t);
      } catch (e) {
        child.failures.push(`${name} > threw ${(e as Error).message}`);
      } finally {
        await child.close();
      }
      failures.push(...child.failures);
    },
    ok: (v, m) => check(Boolean(v), m),
    equal: (found, wanted, m) => check(found === wanted, m),
    same: (found, wanted, m) => check(JSON.stringify(found) === JSON.stringify(wanted), m),
    fail: (m) => check(false, m),
    teardown: (fn) => void teardowns.push(fn),
    testdir: () => path.join(dir, `${prefix.replace(/[^a-z0-9]+/gi, '-')}${dirs++}`),
  };
  return {
    t: rec,
    failures,
    skips,
    async close() {
      for (const fn of teardowns.reverse()) await fn();
    },
  };
}

t.test('kindConformance names what a careless kind gets wrong', async (t) => {
  const root = t.testdir({
    up: {
      tool: {
        'versions.json': JSON.stringify({ versions: ['1.0.0', '1.1.0'] }),
        '1.0.0': { 'tool.txt': 'one' },
        '1.1.0': { 'tool.txt': 'two' },
      },
    },
    runs: {},
  });
  const spec: KindConformanceSpec = {
    kind: careless,
    upstream: { root: path.join(root, 'up') },
    coordinates: [{ name: 'Tool' }],
    pkg: { name: 'tool', versions: ['1.0.0', '1.1.0'] },
    versionSpellings: [['1.0', '1.0.0']],
    paths: {
      download: (v) => `tool/${v}/tool.txt`,
      listings: [
        {
          path: 'tool/versions.json',
          lists: (body, v) => (JSON.parse(body.toString('utf8')) as { versions: string[] }).versions.includes(v),
        },
      ],
      unknown: 'tool',
    },
    skip: { head: 'not under test here' },
  };
  const r = recorder(path.join(root, 'runs'));
  await kindConformance(r.t, spec);
  await r.close();
  t.same(
    r.skips,
    [
      "HEAD answers GET's status and headers with no body: not under test here",
      'a group of two members merges their listings (first member wins) and serves a download from the first member that has it: the careless kind has no group hook: it cannot be the type of a group registry',
    ],
    'a skipped check is reported with its reason (the group check, for a kind without the hook)',
  );
  const failed = (check: string, message: RegExp) =>
    t.ok(
      r.failures.some((f) => f.startsWith(check) && message.test(f)),
      `${check}: ${message}`,
    );
  failed('coordinates round-trip', /formats as "Tool", which parses as \{"name":"tool"\}/);
  failed(
    'canonicalVersion is total and idempotent',
    /canonicalVersion\("1\.0\.0"\) is "1\.0\.0\.0", and of that "1\.0\.0\.0\.0", expected the same/,
  );
  failed(
    'canonicalVersion is total and idempotent',
    /the spellings 1\.0, 1\.0\.0 gave 1\.0\.0 \| 1\.0\.0\.0, expected one canonical spelling/,
  );
  failed(
    'canonicalVersion is total and idempotent',
    /block on the canonical spelling 1\.0\.0\.0, download of 1\.0\.0: answered 200 one, expected 403/,
  );
  failed('a blocked version', /answered 200 one, expected 403/);
  failed('a blocked version', /upstream was asked 1 time\(s\), expected 0/);
  failed('an unlisted version', /listing tool\/versions\.json still offers 1\.1\.0, expected it gone/);
  failed('an HTML page answered with 200', /answered 200 <html>/);
  failed('a probe while the upstream answers 503', /answered absent \(rung listing\), expected inconclusive/);
  failed('a version flagged hard_block', /answered 200 one, expected 403/);
  t.notOk(
    r.failures.some((f) => f.startsWith('an unknown path')),
    'the unknown path is a 404 all the same',
  );
});

t.test('a spec with no listing must say why unlisting is skipped', async (t) => {
  const spec: KindConformanceSpec = {
    kind: careless,
    upstream: {},
    coordinates: [],
    pkg: { name: 'tool', versions: ['1.0.0', '1.1.0'] },
    paths: { download: (v) => `tool/${v}/tool.txt`, listings: [], unknown: 'x' },
  };
  await t.rejects(
    kindConformance(recorder(t.testdir()).t, spec),
    /names no listing; give paths\.listings or skip\.unlisted/,
  );
});
