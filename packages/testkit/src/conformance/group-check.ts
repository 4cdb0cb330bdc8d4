/**
 * The `group` check of kindConformance, for kinds with a `group` hook (decision 0051): the merge names real
 * routes, a group of two members of the kind serves one listing with versions from both, and where both
 * members list a version the first member's entry is kept (in the merge, and for the download).
 */
import path from 'node:path';
import { splitSegments, type GroupPart, type KindRoute, type RouteMatch } from '@hub/runtime';
import { mergeContext } from '../group-merge.js';
import { rawRequest, type RawResponse } from '../raw-request.js';
import { startFixtureUpstream } from '../fixture-upstream.js';
import { startTestHub } from '../test-hub.js';
import { describe, type ConformanceTest } from './harness.js';
import type { ConformanceListing, KindConformanceSpec } from './spec.js';

const FIRST = 'conformance-a';
const SECOND = 'conformance-b';
const GROUP = 'conformance-group';

/** The route a GET of the listing matches, as the runtime finds it. */
function routeOf(
  spec: KindConformanceSpec,
  listing: ConformanceListing,
): { route: KindRoute; match: RouteMatch } | null {
  const segments = splitSegments(listing.path.split('?')[0]!);
  for (const route of spec.kind.routes) {
    const match = route.match(segments);
    if (match && (route.methods ?? ['GET', 'HEAD']).includes('GET')) return { route, match };
  }
  return null;
}

export async function groupCheck(t: ConformanceTest, spec: KindConformanceSpec): Promise<void> {
  const group = spec.kind.group;
  if (!group) return void t.fail('group: the kind has no group hook (the suite should have skipped this check)');
  const ids = new Set(spec.kind.routes.map((r) => r.id));
  for (const id of Object.keys(group.merge))
    t.ok(
      ids.has(id),
      `group: merge names route "${id}", which ${ids.has(id) ? 'is' : 'is not'} one of the kind's routes (${[...ids].join(', ')})`,
    );

  const listing = spec.paths.listings[spec.group?.listing ?? 0];
  if (!listing) return void t.fail('group: no listing to merge (give paths.listings, and group.listing for which)');
  const found = routeOf(spec, listing);
  if (!found || !group.merge[found.route.id])
    return void t.fail(
      `group: listing ${listing.path} is answered by route ${found?.route.id ?? '(none)'}, which group.merge does not name`,
    );

  const dir = t.testdir();
  const up = [await startFixtureUpstream(spec.upstream), await startFixtureUpstream(spec.upstream)];
  for (const u of up) t.teardown(() => u.close());
  const member = (name: string, url: string) => ({
    ...spec.registry,
    name,
    type: spec.kind.id,
    mode: 'proxy',
    upstream: `${url}${spec.upstreamPath ?? ''}`,
  });
  const hub = await startTestHub({
    dir: path.join(dir, 'hub'),
    plugins: [spec.kind],
    registries: [
      member(FIRST, up[0]!.url),
      member(SECOND, up[1]!.url),
      { name: GROUP, type: spec.kind.id, mode: 'group', members: [FIRST, SECOND] },
    ],
  });
  t.teardown(async () => {
    await hub.hub.artifacts.idle();
    await hub.close();
  });
  const reader = await hub.token('conformance-reader', { roles: ['reader'] });
  const get = (registry: string, subpath: string, headers: Record<string, string> = {}): Promise<RawResponse> =>
    rawRequest(`${hub.url}/proxy/${registry}/${subpath}`, {
      headers: { ...spec.headers, ...headers, authorization: `Bearer ${reader}` },
    });
  const [v0, v1] = spec.pkg.versions;
  const { name } = spec.pkg;

  // The merge on the two members' own answers, both listing both versions: the first member's entries win.
  const query = listing.path.includes('?') ? listing.path.slice(listing.path.indexOf('?') + 1) : '';
  const answers = [await get(FIRST, listing.path, listing.headers), await get(SECOND, listing.path, listing.headers)];
  for (const [i, a] of answers.entries())
    t.equal(a.status, 200, `group: member ${i + 1}'s listing ${listing.path} answered ${describe(a)}, expected 200`);
  const parts: GroupPart[] = answers.map((a, i) => ({
    member: i === 0 ? FIRST : SECOND,
    mode: 'proxy',
    status: 200,
    headers: Object.fromEntries(a.headers.entries()),
    body: a.body,
  }));
  // The request a merge sees (group-merge.ts): base URL, headers, query and log; anything else throws.
  const headers = Object.fromEntries(
    Object.entries({ ...spec.headers, ...listing.headers }).map(([k, v]) => [k.toLowerCase(), v]),
  );
  const { rc } = mergeContext({
    registry: { name: GROUP, type: spec.kind.id },
    baseUrl: `${hub.url}/proxy/${GROUP}`,
    headers,
    query,
  });
  const merged = await group.merge[found.route.id]!(rc, parts, found.match);
  const body = Buffer.isBuffer(merged.body)
    ? merged.body
    : Buffer.from(typeof merged.body === 'string' ? merged.body : '');
  t.equal(merged.status, 200, `group: the merge answered ${merged.status}, expected 200`);
  for (const v of [v0, v1])
    t.ok(
      listing.lists(body, v),
      `group: the merged listing ${listing.lists(body, v) ? 'offers' : 'lacks'} ${v}, expected it offered`,
    );
  const memberOf =
    spec.group?.memberOf ??
    ((b: Buffer, _v: string, names: readonly string[]) => names.find((m) => b.includes(`/proxy/${m}/`)) ?? null);
  if (memberOf(answers[0]!.body, v0, [FIRST, SECOND]) === FIRST) {
    t.equal(
      memberOf(body, v0, [SECOND, FIRST]),
      FIRST,
      `group: the merged entry of ${v0}, which both members list, should be the first member's`,
    );
  }

  // Through the group: each member lists one version; the group's listing offers both.
  const unlist = (registry: string, version: string) =>
    hub.hub.services.unlisting.add({ registry, package_name: name, version }, 'conformance');
  await unlist(FIRST, v1);
  await unlist(SECOND, v0);
  const both = await get(GROUP, listing.path, listing.headers);
  t.equal(
    both.status,
    200,
    `group: listing ${listing.path} through the group answered ${describe(both)}, expected 200`,
  );
  for (const v of [v0, v1])
    t.ok(
      both.status === 200 && listing.lists(both.body, v),
      `group: the group's listing ${both.status === 200 && listing.lists(both.body, v) ? 'offers' : 'lacks'} ${v}, expected it offered (from one member each)`,
    );

  // A download both members can serve comes from the first, and is cached under it only.
  const before = up[1]!.requests.length;
  const dl = await get(GROUP, spec.paths.download(v0));
  t.equal(dl.status, 200, `group: download of ${v0} through the group answered ${describe(dl)}, expected 200`);
  const log = await hub.hub.services.accessLog.query({ via_group: GROUP, actions: ['download'] }, { limit: 5 });
  t.equal(
    log[0]?.registry,
    FIRST,
    `group: the download of ${v0} was served by ${String(log[0]?.registry)}, expected the first member ${FIRST}`,
  );
  t.equal(
    up[1]!.requests.length - before,
    0,
    `group: the second member's upstream was asked ${up[1]!.requests.length - before} time(s) for a download the first member served`,
  );
}
