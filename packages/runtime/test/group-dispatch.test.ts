import path from 'node:path';
import fs from 'node:fs';
import t from 'tap';
import { filesKind, rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { defineKind, reply, type GroupPart } from '../src/index.js';

/**
 * The runtime's half of group registries (decision 0051), with a test kind at a root mount: the group's routes
 * run for its members with the group's base URL, listings are merged by the kind, files come from the first
 * member that has them, under `/proxy/<group>/` and `/<mount>/<group>/` alike.
 */
const listed = (p: GroupPart) => JSON.parse(p.body.toString('utf8')) as { versions: Record<string, string> };
const kind = defineKind({
  ...filesKind,
  id: 'grouped',
  rootMount: 'g2',
  group: {
    merge: {
      // Versions: the first part that lists one gives its entry.
      meta: (rc, parts) => {
        const versions: Record<string, string> = {};
        for (const p of parts) for (const [v, from] of Object.entries(listed(p).versions)) versions[v] ??= from;
        return reply.json({ versions, merged_by: rc.registry.name, parts: parts.map((p) => `${p.member}:${p.mode}`) });
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
        const versions = (JSON.parse(doc.body.toString('utf8')) as { versions: string[] }).versions;
        const hidden = await rc.hiddenVersions(m.coordinate!.name);
        // Each entry names where its file is: the base URL the member was given (the group's).
        return reply.json({
          versions: Object.fromEntries(
            versions.filter((v) => !hidden.has(v)).map((v) => [v, `${rc.baseUrl}|${rc.registry.name}`]),
          ),
        });
      },
    },
  ],
});

/** Two upstreams: `a` lists tool 1.0 and 2.0, `b` lists 2.0 and 3.0; each holds the files it lists. */
function upstreamDir(root: string, name: string, versions: string[]): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'tool.json'), JSON.stringify({ versions }));
  for (const v of versions) {
    fs.mkdirSync(path.join(dir, 'tool', v), { recursive: true });
    fs.writeFileSync(path.join(dir, 'tool', v, 'f.bin'), `tool ${v} from ${name}\n`);
  }
  return dir;
}

t.test(
  'a group: merged listings, files from the first member that has them, at /proxy/ and the root mount',
  async (t) => {
    const root = t.testdir({});
    const a = await startFixtureUpstream({ root: upstreamDir(root, 'a', ['1.0', '2.0']) });
    const b = await startFixtureUpstream({ root: upstreamDir(root, 'b', ['2.0', '3.0']) });
    t.teardown(() => Promise.all([a.close(), b.close()]));
    const hub = await startTestHub({
      dir: path.join(root, 'hub'),
      plugins: [kind],
      registries: [
        { name: 'a', type: 'grouped', upstream: a.url },
        { name: 'b', type: 'grouped', upstream: b.url },
        { name: 'both', type: 'grouped', mode: 'group', members: ['a', 'b'] },
      ],
      config: { auth: { anonymous: ['source:read'] } },
    });
    t.teardown(async () => {
      await hub.hub.artifacts.idle();
      await hub.close();
    });

    for (const prefix of ['proxy', 'g2']) {
      const meta = await rawRequest(`${hub.url}/${prefix}/both/meta/tool`);
      t.equal(meta.status, 200, prefix);
      t.same(
        meta.json(),
        {
          versions: {
            '1.0': `${hub.url}/proxy/both|a`,
            '2.0': `${hub.url}/proxy/both|a`,
            '3.0': `${hub.url}/proxy/both|b`,
          },
          merged_by: 'both',
          parts: ['a:proxy', 'b:proxy'],
        },
        `${prefix}: first member wins; members wrote the group's base URL`,
      );
      t.match(meta.headers.get('etag'), /^"[0-9a-f]{64}"$/, 'the runtime gives a merged document an ETag');
    }

    const two = await rawRequest(`${hub.url}/g2/both/tool/2.0/f.bin`);
    t.equal(two.body.toString(), 'tool 2.0 from a\n', 'a file both members have comes from the first');
    const three = await rawRequest(`${hub.url}/proxy/both/tool/3.0/f.bin`);
    t.equal(three.body.toString(), 'tool 3.0 from b\n', 'a file only the second has comes from it');
    t.equal(a.count('/tool/3.0/'), 1, 'the first member was asked first');
    const head = await rawRequest(`${hub.url}/proxy/both/tool/3.0/f.bin`, { method: 'HEAD' });
    t.equal(head.status, 200);
    t.equal(head.body.length, 0);
    const range = await rawRequest(`${hub.url}/proxy/both/tool/3.0/f.bin`, { headers: { range: 'bytes=0-3' } });
    t.equal(range.status, 206);
    t.equal(range.body.toString(), 'tool');
    t.equal((await rawRequest(`${hub.url}/proxy/both/tool/9.0/f.bin`)).status, 404, 'in no member');

    await hub.hub.artifacts.idle();
    const rows = (await hub.hub.db('artifacts').select('registry', 'cache_key')) as Array<{
      registry: string;
      cache_key: string;
    }>;
    t.same(
      rows.map((r) => `${r.registry}:${r.cache_key}`).sort(),
      ['a:tool/2.0/f.bin', 'b:tool/3.0/f.bin'],
      'each file cached once, under the member that served it',
    );

    // Only one member has the package: its answer is served as it is, not merged.
    fs.writeFileSync(path.join(root, 'a', 'solo.json'), JSON.stringify({ versions: ['0.1'] }));
    const one = await rawRequest(`${hub.url}/proxy/both/meta/solo`);
    t.same(one.json(), { versions: { '0.1': `${hub.url}/proxy/both|a` } }, 'one answer, unmerged');

    // A write to a group is refused, naming why.
    const put = await fetch(`${hub.url}/proxy/both/tool/4.0/f.bin`, { method: 'PUT', body: 'x' });
    t.equal(put.status, 405);
  },
);
