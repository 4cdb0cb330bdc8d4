/**
 * A reload under load (issue 29): eight loops of packument and tarball GETs run through the hub while hub.toml
 * is reloaded ten times, each reload moving the npm registry to the other upstream (so its upstream client is
 * replaced while requests use it) and adding or removing a second registry. Not one request may fail. The
 * figures are printed as comments and recorded in docs/operations.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { parse, stringify } from 'smol-toml';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import { npmFixtureHandler, startFixtureUpstream, startTestHub } from '@hub/testkit';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const LOOPS = 8;
const RELOADS = 10;
/** Requests served between two reloads. */
const BETWEEN = 100;

t.test('ten reloads under a steady stream of packument and tarball requests: zero failed requests', async (t) => {
  const upstreams = [
    await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) }),
    await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) }),
  ];
  t.teardown(() => Promise.all(upstreams.map((u) => u.close())));
  const dir = t.testdir({});
  // metadata_ttl_secs = 0: every packument request asks the upstream again (a conditional GET), so requests are in flight upstream at each swap.
  const hub = await startTestHub({
    dir,
    plugins: [npm, admin],
    registries: [{ name: 'npm', type: 'npm', upstream: upstreams[0]!.url, metadata_ttl_secs: 0 }],
    config: { auth: { anonymous: ['source:read'] } },
  });
  t.teardown(() => hub.close());
  const file = path.join(dir, 'hub.toml');
  const started = parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;

  let running = true;
  let requests = 0;
  const failures: string[] = [];
  const get = async (url: string, accept?: string) => {
    try {
      const res = await fetch(url, { headers: accept ? { accept } : {} });
      const body = await res.arrayBuffer();
      if (res.status !== 200 || body.byteLength === 0) failures.push(`${url}: ${res.status}`);
    } catch (e) {
      failures.push(`${url}: ${(e as Error).message}`);
    }
    requests++;
  };
  const loop = async () => {
    while (running) {
      await get(`${hub.url}/proxy/npm/hubdemo`, 'application/vnd.npm.install-v1+json');
      await get(`${hub.url}/proxy/npm/hubdemo/-/hubdemo-1.1.0.tgz`);
      await get(`${hub.url}/proxy/npm/hubdep`, 'application/json');
      await get(`${hub.url}/proxy/npm/hubdep/-/hubdep-1.0.0.tgz`);
    }
  };
  const began = performance.now();
  const loops = Array.from({ length: LOOPS }, loop);
  const results: string[] = [];
  for (let i = 1; i <= RELOADS; i++) {
    // Let the loops run between reloads.
    const before = requests;
    while (requests < before + BETWEEN) await new Promise((r) => setTimeout(r, 5));
    const c = structuredClone(started);
    c.registries[0].upstream = upstreams[i % 2]!.url;
    if (i % 2 === 1) c.registries.push({ name: 'extra', type: 'npm', upstream: upstreams[0]!.url });
    fs.writeFileSync(file, stringify(c));
    const res = await fetch(`${hub.url}/api/v1/admin/config/reload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.adminToken}` },
    });
    results.push(((await res.json()) as { replicas: Array<{ result: string }> }).replicas[0]!.result);
  }
  const before = requests;
  while (requests < before + BETWEEN) await new Promise((r) => setTimeout(r, 5));
  running = false;
  await Promise.all(loops);
  const seconds = (performance.now() - began) / 1000;

  t.same(results, Array(RELOADS).fill('applied'), 'every reload applied');
  t.same(failures, [], 'zero failed requests');
  t.ok(
    upstreams[0]!.count('/hubdemo') > 0 && upstreams[1]!.count('/hubdemo') > 0,
    'requests went to both upstreams as the reloads moved npm between them',
  );
  t.comment(
    `reload under load: ${requests} requests from ${LOOPS} loops, ${RELOADS} reloads, ${seconds.toFixed(1)} s, ${failures.length} failed`,
  );
});
