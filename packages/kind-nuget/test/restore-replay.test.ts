/**
 * No NuGet v3 client can be installed on these machines (packages/kind-nuget/README.md and 10), so this replays what
 * `dotnet restore` sends (NuGet.Protocol: the service index, then the flat container because
 * PackageBaseAddress is preferred for restore, one .nupkg per package, dependencies read from the
 * .nuspec inside it), and the registration path `dotnet add package` and the IDE take. Like
 * NuGet's HttpSourceAuthenticationHandler, credentials from NuGet.Config are sent only after a 401
 * that challenges for Basic.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { findInZip } from '@hub/runtime';
import { basic, FIXTURES, get, isZip, OPEN, setup, type NugetSetup } from './setup.js';

interface Replay {
  requests: number;
  challenges: number;
  get(url: string): Promise<Awaited<ReturnType<typeof get>>>;
}

/** A client with NuGet's headers that answers a Basic challenge once per request, as NuGet does. */
function client(t: Test, s: NugetSetup, credentials?: { user: string; password: string }): Replay {
  const headers = {
    'user-agent': 'NuGet .NET Core MSBuild Task/6.8.0 (replay)',
    'x-nuget-session-id': 'replay-1',
    'x-nuget-client-version': '6.8.0',
    'accept-language': 'en-US',
  };
  const r: Replay = {
    requests: 0,
    challenges: 0,
    async get(url) {
      r.requests++;
      let res = await get(url, headers);
      if (res.status === 401 && credentials) {
        t.match(
          res.headers.get('www-authenticate'),
          /\bBasic realm="hub"/,
          `401 challenges for Basic: ${url.slice(s.base.length)}`,
        );
        r.challenges++;
        r.requests++;
        res = await get(url, { ...headers, ...basic(credentials.user, credentials.password) });
      }
      if (/json/.test(res.headers.get('content-type') ?? ''))
        t.notOk(res.body.includes(s.upstream.url), `no upstream URL in ${url.slice(s.base.length)}`);
      return res;
    },
  };
  return r;
}

const resource = (index: any, type: string): string => index.resources.find((x: any) => x['@type'] === type)['@id'];

/** `dotnet restore` of a project with `<PackageReference Include="HubDemo" Version="1.1.0" />`. */
async function restore(t: Test, s: NugetSetup, c: Replay) {
  const index = await c.get(`${s.base}/nuget/v3/index.json`);
  t.equal(index.status, 200, 'service index');
  const flat = resource(index.json(), 'PackageBaseAddress/3.0.0');
  t.ok(flat.startsWith(s.base), 'PackageBaseAddress points at hub');

  const installed: Record<string, string> = {};
  const want: Array<[string, string]> = [['HubDemo', '[1.1.0, )']];
  const queued = new Set(['hubdemo']);
  while (want.length) {
    const [id, range] = want.shift()!;
    const lower = id.toLowerCase();
    const list = await c.get(`${flat}${lower}/index.json`);
    t.equal(list.status, 200, `${id} version list`);
    const min = /^\[?([^,\])]+)/.exec(range)![1]!;
    const version = (list.json().versions as string[]).find((v) => v === min) ?? list.json().versions[0];
    const nupkg = await c.get(`${flat}${lower}/${version}/${lower}.${version}.nupkg`);
    t.equal(nupkg.status, 200, `${id} ${version} .nupkg`);
    t.ok(isZip(nupkg.body));
    t.same(
      nupkg.body,
      fs.readFileSync(path.join(FIXTURES, 'v3-flatcontainer', lower, version, `${lower}.${version}.nupkg`)),
      'the package, byte for byte',
    );
    installed[lower] = version;
    const nuspec = await findInZip(Readable.from([nupkg.body]), (n) => n.endsWith('.nuspec') && !n.includes('/'), {
      maxBytes: 1 << 20,
      maxEntries: 100,
    });
    for (const m of nuspec!.data.toString('utf8').matchAll(/<dependency id="([^"]+)" version="([^"]+)"/g))
      if (!queued.has(m[1]!.toLowerCase())) {
        queued.add(m[1]!.toLowerCase());
        want.push([m[1]!, m[2]!]);
      }
  }
  return installed;
}

t.test('dotnet restore, replayed: service index, flat container, .nupkg; Basic after the 401 challenge', async (t) => {
  const s = await setup(t);
  const token = await s.token('ci', { roles: ['reader'] });
  const c = client(t, s, { user: 'ci', password: token });
  t.same(await restore(t, s, c), { hubdemo: '1.1.0', hubdep: '1.0.0' }, 'the package and its dependency');
  t.equal(c.challenges, 4, 'one 401 for each version list and .nupkg; none for the service index');
  t.equal(c.requests, 9, '5 documents and packages, 4 of them retried with credentials');
  t.equal(
    s.upstream.count((r) => Boolean(r.headers.authorization)),
    0,
    'client credentials never reach the upstream',
  );

  const again = client(t, s, { user: 'ci', password: token });
  await restore(t, s, again);
  t.equal(
    s.upstream.count((r) => r.url.endsWith('.nupkg')),
    2,
    'a second restore is served from the cache',
  );
});

t.test('dotnet add package / the IDE, replayed: registration, then packageContent', async (t) => {
  const s = await setup(t);
  const c = client(t, s, { user: 'dev', password: await s.token('dev') });
  const index = (await c.get(`${s.base}/nuget/v3/index.json`)).json();
  const found = (
    await c.get(`${resource(index, 'SearchQueryService/3.5.0')}?q=hubdemo&take=20&prerelease=false&semVerLevel=2.0.0`)
  ).json();
  t.equal(found.data[0].id, 'HubDemo', 'search finds it');
  const reg = resource(index, 'RegistrationsBaseUrl/3.6.0');
  t.equal(found.data[0].registration, `${reg}hubdemo/index.json`, 'search points at hub registration');
  const registration = await c.get(found.data[0].registration);
  t.equal(registration.status, 200);
  const leaves = registration.json().items.flatMap((p: any) => p.items);
  const latest = leaves.filter((l: any) => l.catalogEntry.listed).at(-1);
  t.equal(latest.catalogEntry.version, '1.1.0');
  t.same(
    latest.catalogEntry.dependencyGroups.map((g: any) => g.targetFramework),
    ['net6.0', '.NETStandard2.0'],
  );
  const nupkg = await c.get(latest.packageContent);
  t.equal(nupkg.status, 200, 'packageContent downloads through hub');
  t.ok(isZip(nupkg.body));
  const dep = await c.get(latest.catalogEntry.dependencyGroups[0].dependencies[0].registration);
  t.equal(dep.status, 200, 'the dependency registration is a hub URL');
  t.equal(c.challenges, 4, 'search, two registrations and the .nupkg each challenged once');
});

t.test('restore with anonymous reads allowed: no challenge at all', async (t) => {
  const s = await setup(t, { config: OPEN });
  const c = client(t, s);
  t.same(await restore(t, s, c), { hubdemo: '1.1.0', hubdep: '1.0.0' });
  t.equal(c.requests, 5);
});

t.test('restore with a wrong password: the retry is refused as well', async (t) => {
  const s = await setup(t);
  const c = client(t, s, { user: 'ci', password: 'hub_not_a_token' });
  t.equal((await c.get(`${s.base}/nuget/v3/index.json`)).status, 200, 'the service index needs no credentials');
  const list = await c.get(`${s.flat}/hubdemo/index.json`);
  t.equal(list.status, 401, 'NuGet reports NU1301 here');
  t.equal(list.json().error.code, 'unauthenticated');
  t.equal(s.upstream.count(), 0);
});
