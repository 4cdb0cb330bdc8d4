import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { filesKind, rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { defineKind, reply, type GroupPart } from '../src/index.js';

/**
 * Decision 0053, the runtime's half: the members of a merged listing are asked without the request's Range and
 * validator headers (they are about the merged document), and a merge's `GroupAsk` reaches the members' answers
 * to another request of a merged route, with the query it gives, within a bound.
 */
const seen = (p: GroupPart) =>
  JSON.parse(p.body.toString('utf8')) as { versions: string[]; saw: Record<string, string | null> };
const kind = defineKind({
  ...filesKind,
  id: 'asking',
  group: {
    merge: {
      async meta(rc, parts, _m, ask) {
        const out: Record<string, unknown> = { parts: parts.map((p) => ({ member: p.member, ...seen(p) })) };
        if (rc.query.get('ask') === 'other')
          out.asked = (await ask!(['meta', 'other'], new URLSearchParams('q=1'))).map((p) => ({
            member: p.member,
            ...seen(p),
          }));
        if (rc.query.get('ask') === 'file') out.asked = (await ask!(['tool', '1.0', 'f.bin'])).length;
        if (rc.query.get('ask') === 'flood') for (let i = 0; i < 600; i++) await ask!(['meta', 'other']);
        return reply.json(out);
      },
    },
  },
  routes: [
    ...filesKind.routes.filter((r) => r.id !== 'meta'),
    {
      id: 'meta',
      match: (s) => (s.length === 2 && s[0] === 'meta' ? { coordinate: { name: s[1]! } } : null),
      async handle(rc, m) {
        const doc = await rc.metadata({
          key: `meta:${m.coordinate!.name}`,
          url: `${rc.registry.upstream}/${m.coordinate!.name}.json`,
        });
        const saw = Object.fromEntries(
          ['range', 'if-none-match', 'if-modified-since', 'x-client'].map((h) => [h, rc.headers[h] ?? null]),
        );
        return reply.json({
          versions: (JSON.parse(doc.body.toString('utf8')) as { versions: string[] }).versions,
          saw: { ...saw, query: rc.query.toString() },
        });
      },
    },
  ],
});

function upstreamDir(root: string, name: string, docs: Record<string, string[]>): string {
  const dir = path.join(root, name);
  fs.mkdirSync(path.join(dir, 'tool', '1.0'), { recursive: true });
  for (const [doc, versions] of Object.entries(docs))
    fs.writeFileSync(path.join(dir, `${doc}.json`), JSON.stringify({ versions }));
  fs.writeFileSync(path.join(dir, 'tool', '1.0', 'f.bin'), `from ${name}\n`);
  return dir;
}

t.test(
  'merged listings: members asked without Range and validators; GroupAsk with its own query, merge routes only, bounded',
  async (t) => {
    const root = t.testdir({});
    const a = await startFixtureUpstream({ root: upstreamDir(root, 'a', { tool: ['1.0'], other: ['7.0'] }) });
    const b = await startFixtureUpstream({ root: upstreamDir(root, 'b', { tool: ['2.0'], other: ['8.0'] }) });
    t.teardown(() => Promise.all([a.close(), b.close()]));
    const hub = await startTestHub({
      dir: path.join(root, 'hub'),
      plugins: [kind],
      registries: [
        { name: 'a', type: 'asking', upstream: a.url },
        { name: 'b', type: 'asking', upstream: b.url },
        { name: 'both', type: 'asking', mode: 'group', members: ['a', 'b'] },
      ],
      config: { auth: { anonymous: ['source:read'] } },
    });
    t.teardown(async () => {
      await hub.hub.artifacts.idle();
      await hub.close();
    });

    const headers = {
      range: 'bytes=5-',
      'if-none-match': '"nope"',
      'if-modified-since': 'Sat, 01 Jan 2000 00:00:00 GMT',
      'x-client': 'kept',
    };
    const merged = await rawRequest(`${hub.url}/proxy/both/meta/tool?ask=other`, { headers });
    t.equal(merged.status, 200);
    const doc = merged.json() as {
      parts: Array<{ member: string; saw: Record<string, string | null> }>;
      asked: Array<{ member: string; versions: string[]; saw: Record<string, string | null> }>;
    };
    const clean = { range: null, 'if-none-match': null, 'if-modified-since': null, 'x-client': 'kept' };
    t.same(
      doc.parts.map((p) => [p.member, p.saw]),
      [
        ['a', { ...clean, query: 'ask=other' }],
        ['b', { ...clean, query: 'ask=other' }],
      ],
      'members saw no Range or validator, the rest of the request as it was',
    );
    t.same(
      doc.asked.map((p) => [p.member, p.versions, p.saw.query, p.saw.range]),
      [
        ['a', ['7.0'], 'q=1', null],
        ['b', ['8.0'], 'q=1', null],
      ],
      "GroupAsk: every member's answer to the other request, with the query the merge gave",
    );

    const file = await rawRequest(`${hub.url}/proxy/both/meta/tool?ask=file`);
    t.equal(file.json().asked, 0, 'a route the kind does not merge (a file) is never asked of every member');
    t.equal(a.count('/tool/1.0/f.bin') + b.count('/tool/1.0/f.bin'), 0);

    const flood = await rawRequest(`${hub.url}/proxy/both/meta/tool?ask=flood`);
    t.equal(flood.status, 502, 'a merge asking more than 512 times is stopped');
    t.match(flood.json().error.message, /more than 512 times/);
  },
);
