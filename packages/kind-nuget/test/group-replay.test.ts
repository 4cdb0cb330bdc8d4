import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import publishing from '@hub/publishing';
import { findInZip } from '@hub/runtime';
import { startFixtureUpstream, startTestHub } from '@hub/testkit';
import nuget from '../src/index.js';
import { nugetFixtureHandler } from './nuget-fixture.js';
import { nupkg, pushRequest } from './push-client.js';
import { basic, FIXTURES, get, isZip } from './setup.js';

/**
 * Issue 28: the requests `dotnet restore` sends (see restore-replay.test.ts: service index, flat container version
 * lists, one .nupkg each, dependencies from the .nuspec inside), replayed against a group `nuget` of a local
 * registry (`nuget-internal`: Acme.Internal 1.0.0, pushed here, needing HubDemo >= 1.2.0), the public fixture
 * feed (`nuget-public`: HubDemo 1.0.0 and 1.1.0, HubDep 1.0.0) and a vendor feed (`nuget-vendor`: HubDemo 1.2.0,
 * needing HubDep). NuGet takes the lowest version a range allows, so HubDemo 1.2.0 comes from the vendor.
 */
const HUBDEMO_12 = nupkg({
  id: 'HubDemo',
  version: '1.2.0',
  deps: '<group targetFramework="net8.0"><dependency id="HubDep" version="1.0.0" /></group>',
});

/** A feed with a service index naming only its flat container, holding HubDemo 1.2.0. */
function vendorFeed(dir: string): string {
  fs.mkdirSync(path.join(dir, 'v3'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'v3', 'index.json.tmpl'),
    JSON.stringify({
      version: '3.0.0',
      resources: [{ '@id': '{{UPSTREAM}}/v3-flatcontainer/', '@type': 'PackageBaseAddress/3.0.0' }],
    }),
  );
  const at = path.join(dir, 'v3-flatcontainer', 'hubdemo');
  fs.mkdirSync(path.join(at, '1.2.0'), { recursive: true });
  fs.writeFileSync(path.join(at, 'index.json'), JSON.stringify({ versions: ['1.2.0'] }));
  fs.writeFileSync(path.join(at, '1.2.0', 'hubdemo.1.2.0.nupkg'), HUBDEMO_12);
  return dir;
}

t.test(
  'dotnet restore, replayed through a group: a pushed package, its dependency from the vendor feed, and its dependency from the public feed',
  async (t) => {
    const dir = t.testdir();
    const pub = await startFixtureUpstream({ handler: nugetFixtureHandler(FIXTURES) });
    t.teardown(() => pub.close());
    const vendor = await startFixtureUpstream({ handler: nugetFixtureHandler(vendorFeed(path.join(dir, 'vendor'))) });
    t.teardown(() => vendor.close());
    const hub = await startTestHub({
      dir: path.join(dir, 'hub'),
      plugins: [nuget, publishing],
      registries: [
        { name: 'nuget-internal', type: 'nuget', mode: 'local' },
        { name: 'nuget-public', type: 'nuget', upstream: `${pub.url}/v3/index.json` },
        { name: 'nuget-vendor', type: 'nuget', upstream: `${vendor.url}/v3/index.json` },
        { name: 'nuget', type: 'nuget', mode: 'group', members: ['nuget-internal', 'nuget-public', 'nuget-vendor'] },
      ],
    });
    t.teardown(() => hub.close());
    const publisher = await hub.token('ci', { roles: ['publisher'] });
    const reader = await hub.token('dev', { roles: ['reader'] });
    const internal = nupkg({
      id: 'Acme.Internal',
      version: '1.0.0',
      deps: '<group targetFramework="net8.0"><dependency id="HubDemo" version="1.2.0" /></group>',
    });
    const pushed = await pushRequest(
      `${hub.url}/proxy/nuget-internal/api/v2/package`,
      internal,
      basic('ci', publisher),
    );
    t.equal(pushed.status, 201, `pushed to the local member: ${pushed.body}`);

    const headers = {
      'user-agent': 'NuGet .NET Core MSBuild Task/6.8.0 (replay)',
      'x-nuget-session-id': 'replay-1',
      ...basic('dev', reader),
    };
    const base = `${hub.url}/proxy/nuget`;
    const index = await get(`${base}/nuget/v3/index.json`, headers);
    t.equal(index.status, 200, 'service index');
    const flat = (index.json().resources as Array<{ '@id': string; '@type': string }>).find(
      (r) => r['@type'] === 'PackageBaseAddress/3.0.0',
    )!['@id'];
    t.equal(flat, `${base}/nuget/v3/flatcontainer/`, "the flat container is the group's");

    const installed: Record<string, string> = {};
    const want: Array<[string, string]> = [['Acme.Internal', '1.0.0']];
    while (want.length) {
      const [id, min] = want.shift()!;
      const lower = id.toLowerCase();
      const list = await get(`${flat}${lower}/index.json`, headers);
      t.equal(list.status, 200, `${id} version list`);
      const versions = list.json().versions as string[];
      if (lower === 'hubdemo') t.same(versions, ['1.0.0', '1.1.0', '1.2.0'], "HubDemo's versions from both feeds");
      // NuGet's rule: the lowest version the range allows.
      const version = versions.find((v) => v.localeCompare(min, undefined, { numeric: true }) >= 0)!;
      const pkg = await get(`${flat}${lower}/${version}/${lower}.${version}.nupkg`, headers);
      t.equal(pkg.status, 200, `${id} ${version} .nupkg`);
      t.ok(isZip(pkg.body));
      installed[lower] = version;
      const nuspec = await findInZip(Readable.from([pkg.body]), (n) => n.endsWith('.nuspec') && !n.includes('/'), {
        maxBytes: 1 << 20,
        maxEntries: 100,
      });
      for (const m of nuspec!.data.toString('utf8').matchAll(/<dependency id="([^"]+)" version="([^"]+)"/g))
        if (!(m[1]!.toLowerCase() in installed)) want.push([m[1]!, m[2]!]);
    }
    t.same(installed, { 'acme.internal': '1.0.0', hubdemo: '1.2.0', hubdep: '1.0.0' });
    t.equal(
      vendor.count((r) => r.url.endsWith('/hubdemo.1.2.0.nupkg')),
      1,
      "HubDemo 1.2.0's package came from the vendor feed",
    );
    // Files go to the members in order: the public feed was asked for HubDemo 1.2.0 too, and has none.
    t.equal(
      pub.count((r) => r.url.endsWith('/hubdep.1.0.0.nupkg')),
      1,
      'HubDep from the public feed',
    );
    t.equal(
      pub.count((r) => r.url.endsWith('/hubdemo.1.2.0.nupkg')),
      1,
    );
    t.equal(
      pub.count((r) => r.url.includes('acme')) + vendor.count((r) => r.url.includes('acme')),
      0,
      'the pushed id was never asked of an upstream',
    );
  },
);
