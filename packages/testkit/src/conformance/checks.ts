import { HTML_200_BODY } from '../fixture-upstream.js';
import type { RawResponse } from '../raw-request.js';
import { describe, errorCode, REGISTRY, startHarness, type ConformanceTest } from './harness.js';
import type { ConformanceCheck, KindConformanceSpec } from './spec.js';
import { groupCheck } from './group-check.js';

export interface Check {
  id: ConformanceCheck;
  /** The subtest's name: what a kind must do. */
  title: string;
  run(t: ConformanceTest, spec: KindConformanceSpec): Promise<void>;
}

/** Headers that legitimately differ between two answers for the same thing. */
const VOLATILE_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'x-request-id',
  'x-hub-cache',
  'age',
]);

/** A path to request, with the headers that select its representation. */
interface Fetchable {
  path: string;
  headers?: Record<string, string>;
}

const download = (spec: KindConformanceSpec, version: string): Fetchable => ({ path: spec.paths.download(version) });

function expectRefused(t: ConformanceTest, res: RawResponse, what: string): void {
  t.equal(res.status, 403, `${what}: answered ${describe(res)}, expected 403`);
  t.equal(errorCode(res), 'package_blocked', `${what}: error code ${String(errorCode(res))}, expected package_blocked`);
}

function expectUpstreamError(t: ConformanceTest, res: RawResponse, what: string): void {
  t.equal(res.status, 502, `${what}: answered ${describe(res)}, expected 502`);
  t.equal(errorCode(res), 'upstream_error', `${what}: error code ${String(errorCode(res))}, expected upstream_error`);
}

export const CHECKS: readonly Check[] = [
  {
    id: 'round-trip',
    title: 'coordinates round-trip: parse(format(c)) equals c',
    async run(t, spec) {
      for (const c of spec.coordinates) {
        const text = spec.kind.coordinate.format(c);
        const back = spec.kind.coordinate.parse(text);
        t.same(
          back,
          c,
          `round-trip: ${JSON.stringify(c)} formats as "${text}", which parses as ${JSON.stringify(back)}`,
        );
      }
    },
  },
  {
    id: 'canonical-version',
    title:
      'canonicalVersion is total and idempotent, and a block on the canonical spelling refuses the version as spelt',
    async run(t, spec) {
      const canon = spec.kind.coordinate.canonicalVersion;
      if (!canon)
        return void t.fail(
          'canonical version: the kind has no canonicalVersion (the suite should have skipped this check)',
        );
      const groups = spec.versionSpellings ?? [];
      const samples = [
        ...spec.pkg.versions,
        ...spec.coordinates.flatMap((c) => (c.version === undefined ? [] : [c.version])),
        ...groups.flat(),
        '',
        ' ',
        'V1.0',
        '..',
        'x'.repeat(300),
      ];
      for (const v of samples) {
        const once = canon(v);
        t.equal(
          typeof once,
          'string',
          `canonical version: canonicalVersion(${JSON.stringify(v.slice(0, 40))}) gave ${typeof once}, expected a string`,
        );
        if (typeof once === 'string')
          t.equal(
            canon(once),
            once,
            `canonical version: canonicalVersion(${JSON.stringify(v.slice(0, 40))}) is "${once.slice(0, 40)}", and of that "${canon(once).slice(0, 40)}", expected the same (idempotent)`,
          );
      }
      for (const group of groups) {
        const keys = [...new Set(group.map(canon))];
        t.equal(
          keys.length,
          1,
          `canonical version: the spellings ${group.join(', ')} gave ${keys.join(' | ')}, expected one canonical spelling`,
        );
      }
      const h = await startHarness(t, spec);
      const version = spec.pkg.versions[0];
      await h.block(canon(version));
      let res: RawResponse | undefined;
      const asked = await h.upstreamRequestsDuring(async () => (res = await h.proxy(spec.paths.download(version))));
      expectRefused(t, res!, `block on the canonical spelling ${canon(version)}, download of ${version}`);
      t.equal(
        asked,
        0,
        `block on the canonical spelling ${canon(version)}: upstream was asked ${asked} time(s), expected 0`,
      );
    },
  },
  {
    id: 'blocked',
    title: 'a blocked version answers 403 package_blocked without asking the upstream',
    async run(t, spec) {
      const h = await startHarness(t, spec);
      const version = spec.pkg.versions[0];
      await h.block(version);
      let res: RawResponse | undefined;
      const asked = await h.upstreamRequestsDuring(async () => (res = await h.proxy(spec.paths.download(version))));
      expectRefused(t, res!, `blocked coordinate ${version}`);
      t.equal(asked, 0, `blocked coordinate: upstream was asked ${asked} time(s), expected 0`);
    },
  },
  {
    id: 'unlisted',
    title: 'an unlisted version leaves every listing and stays downloadable by exact version',
    async run(t, spec) {
      const h = await startHarness(t, spec);
      const [kept, hidden] = spec.pkg.versions;
      for (const l of spec.paths.listings) {
        const before = await h.proxy(l.path, { headers: l.headers });
        t.equal(
          before.status,
          200,
          `unlisted version: listing ${l.path} answered ${describe(before)} before unlisting, expected 200`,
        );
        const offered = l.lists(before.body, hidden);
        t.ok(
          offered,
          `unlisted version: before unlisting, listing ${l.path} ${offered ? 'offers' : 'lacks'} ${hidden}, expected it offered (the fixture must list both versions)`,
        );
      }
      await h.unlist(hidden);
      for (const l of spec.paths.listings) {
        const after = await h.proxy(l.path, { headers: l.headers });
        t.equal(after.status, 200, `unlisted version: listing ${l.path} answered ${describe(after)}, expected 200`);
        const stillOffered = l.lists(after.body, hidden);
        t.ok(
          !stillOffered,
          `unlisted version: listing ${l.path} ${stillOffered ? 'still offers' : 'no longer offers'} ${hidden}, expected it gone`,
        );
        const keptOffered = l.lists(after.body, kept);
        t.ok(
          keptOffered,
          `unlisted version: listing ${l.path} ${keptOffered ? 'offers' : 'lacks'} ${kept} (not unlisted), expected it offered`,
        );
      }
      const download = await h.proxy(spec.paths.download(hidden));
      t.equal(
        download.status,
        200,
        `unlisted version: download of ${hidden} answered ${describe(download)}, expected 200`,
      );
    },
  },
  {
    id: 'upstream-500',
    title: 'upstream 500 answers 502 when nothing is cached, and the cached copy when there is one',
    async run(t, spec) {
      // TTL 0: every listing is revalidated, so a cached listing is served only as the stale copy.
      const h = await startHarness(t, spec, { registry: { metadata_ttl_secs: 0 } });
      const [uncached, cached] = spec.pkg.versions;
      h.upstream.fault('/', { type: 'status', status: 500 });
      expectUpstreamError(
        t,
        await h.proxy(spec.paths.download(uncached)),
        `upstream 500, nothing cached: download of ${uncached}`,
      );
      for (const l of spec.paths.listings)
        expectUpstreamError(
          t,
          await h.proxy(l.path, { headers: l.headers }),
          `upstream 500, nothing cached: listing ${l.path}`,
        );

      h.upstream.clearFaults();
      const fresh = await h.proxy(spec.paths.download(cached));
      t.equal(
        fresh.status,
        200,
        `upstream 500, cached copy: first download of ${cached} (upstream healthy) answered ${describe(fresh)}, expected 200`,
      );
      const listings = new Map<Fetchable, RawResponse>();
      for (const l of spec.paths.listings) listings.set(l, await h.proxy(l.path, { headers: l.headers }));
      await h.hub.hub.artifacts.idle();

      h.upstream.fault('/', { type: 'status', status: 500 });
      const served = await h.proxy(spec.paths.download(cached));
      t.equal(
        served.status,
        200,
        `upstream 500, cached copy: download of ${cached} answered ${describe(served)}, expected the cached 200`,
      );
      const same = served.body.equals(fresh.body);
      t.ok(
        same,
        `upstream 500, cached copy: download of ${cached} served ${same ? 'the cached bytes' : 'other bytes than the cached copy'}`,
      );
      for (const [l, first] of listings) {
        const again = await h.proxy(l.path, { headers: l.headers });
        t.equal(
          again.status,
          first.status,
          `upstream 500, cached copy: listing ${l.path} answered ${describe(again)}, expected the cached ${first.status}`,
        );
      }
    },
  },
  {
    id: 'html-200',
    title: 'an HTML page answered with 200 is refused and not cached',
    async run(t, spec) {
      const h = await startHarness(t, spec);
      const version = spec.pkg.versions[0];
      const targets = [download(spec, version), ...spec.paths.listings];
      h.upstream.fault('/', { type: 'html200' });
      for (const f of targets)
        expectUpstreamError(t, await h.proxy(f.path, { headers: f.headers }), `HTML 200 from upstream: ${f.path}`);
      h.upstream.clearFaults();
      for (const [i, { path: p, headers }] of targets.entries()) {
        let res: RawResponse | undefined;
        const asked = await h.upstreamRequestsDuring(async () => (res = await h.proxy(p, { headers })));
        t.equal(
          res!.status,
          200,
          `HTML 200 from upstream, then healthy: ${p} answered ${describe(res!)}, expected 200`,
        );
        const html = res!.body.toString('utf8').includes(HTML_200_BODY);
        t.ok(
          !html,
          `HTML 200 from upstream, then healthy: ${p} ${html ? 'serves the cached HTML page' : 'serves the real document'}`,
        );
        // Later targets may be answered from documents the first one fetched on its way.
        if (i === 0)
          t.ok(
            asked > 0,
            `HTML 200 from upstream, then healthy: ${p} asked the upstream ${asked} time(s), expected at least once (nothing cached from the HTML answer)`,
          );
      }
    },
  },
  {
    id: 'head',
    title: "HEAD answers GET's status and headers with no body",
    async run(t, spec) {
      const h = await startHarness(t, spec);
      for (const { path: p, headers } of [download(spec, spec.pkg.versions[0]), ...spec.paths.listings]) {
        // Compared once cached: a first GET streams the upstream's answer while it is stored.
        await h.proxy(p, { headers });
        await h.hub.hub.artifacts.idle();
        const get = await h.proxy(p, { headers });
        const head = await h.proxy(p, { headers, method: 'HEAD' });
        t.equal(head.status, get.status, `HEAD ${p}: status ${head.status}, GET's is ${get.status}`);
        t.equal(head.body.length, 0, `HEAD ${p}: a body of ${head.body.length} bytes, expected none`);
        const names = new Set([...get.headers.keys(), ...head.headers.keys()].filter((k) => !VOLATILE_HEADERS.has(k)));
        for (const k of names)
          t.equal(
            head.headers.get(k),
            get.headers.get(k),
            `HEAD ${p}: header ${k} is ${String(head.headers.get(k))}, GET's is ${String(get.headers.get(k))}`,
          );
      }
    },
  },
  {
    id: 'unknown-path',
    title: 'an unknown path answers 404 not_found',
    async run(t, spec) {
      const h = await startHarness(t, spec);
      const res = await h.proxy(spec.paths.unknown);
      t.equal(res.status, 404, `unknown path ${spec.paths.unknown}: answered ${describe(res)}, expected 404`);
      t.equal(
        errorCode(res),
        'not_found',
        `unknown path ${spec.paths.unknown}: error code ${String(errorCode(res))}, expected not_found`,
      );
    },
  },
  {
    id: 'probe-503',
    title: 'a probe while the upstream answers 503 is inconclusive, never absent',
    async run(t, spec) {
      const probe = spec.kind.probe;
      if (!probe)
        return void t.fail('probe on upstream 503: the kind has no probe (the suite should have skipped this check)');
      const h = await startHarness(t, spec);
      const reg = h.hub.hub.registries.get(REGISTRY)!;
      const target = spec.probe ?? spec.pkg;
      h.upstream.fault('/', { type: 'status', status: 503 });
      const results = await probe(
        { registry: reg.info, upstream: reg.upstream, log: h.hub.hub.log },
        target.name,
        target.versions,
      );
      t.same(
        results.map((r) => r.version).sort(),
        [...target.versions].sort(),
        'probe on upstream 503: one answer per version asked',
      );
      for (const r of results)
        t.equal(
          r.answer,
          'inconclusive',
          `probe on upstream 503: ${target.name} ${r.version} answered ${r.answer} (rung ${r.rung}${r.detail ? `: ${r.detail}` : ''}), expected inconclusive`,
        );
    },
  },
  {
    id: 'hard-block-flag',
    title: 'a version flagged hard_block is refused, even when cached',
    async run(t, spec) {
      const h = await startHarness(t, spec);
      const [flagged, other] = spec.pkg.versions;
      const first = await h.proxy(spec.paths.download(flagged));
      t.equal(
        first.status,
        200,
        `hard_block flag: download of ${flagged} before the flag answered ${describe(first)}, expected 200`,
      );
      await h.hub.hub.artifacts.idle();
      await h.flagHardBlock(flagged);
      expectRefused(t, await h.proxy(spec.paths.download(flagged)), `hard_block flag on ${flagged}`);
      const unflagged = await h.proxy(spec.paths.download(other));
      t.equal(
        unflagged.status,
        200,
        `hard_block flag on ${flagged}: download of ${other} answered ${describe(unflagged)}, expected 200`,
      );
    },
  },
  {
    id: 'group',
    title:
      'a group of two members merges their listings (first member wins) and serves a download from the first member that has it',
    run: groupCheck,
  },
];
