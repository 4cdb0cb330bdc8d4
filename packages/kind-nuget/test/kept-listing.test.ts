/**
 * Kept listings (issue 29): once the upstream deleted a package and the upstream audit has it as disappeared,
 * hub serves its last good flat container index and registration with only the versions it holds. No NuGet
 * client can be installed here (see restore-replay.test.ts), so this replays what `dotnet restore` sends for
 * `<PackageReference Include="HubDemo" Version="1.*" />`: the service index, the flat container's version
 * list (a floating version takes the highest listed), the .nupkg. The first replay after the deletion shows it
 * fails without the audit.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { disappearedVersions, KEPT_AUDIT_CONFIG, revalidatePackage, sweepUpstream } from '@hub/testkit';
import { FIXTURES, get, isZip, OPEN, setup, type NugetSetup } from './setup.js';

const NUGET = { 'user-agent': 'NuGet .NET Core MSBuild Task/6.8.0 (replay)', 'x-nuget-client-version': '6.8.0' };

/** The restore's requests for HubDemo `1.*`: the version it installs, or why it failed. */
async function restore(s: NugetSetup): Promise<string> {
  const index = await get(`${s.base}/nuget/v3/index.json`, NUGET);
  if (index.status !== 200) return `service index: ${index.status}`;
  const flat = (index.json().resources as Array<{ '@id': string; '@type': string }>).find(
    (r) => r['@type'] === 'PackageBaseAddress/3.0.0',
  )!['@id'];
  const list = await get(`${flat}hubdemo/index.json`, NUGET);
  if (list.status !== 200) return `version list: ${list.status}`;
  const version = (list.json().versions as string[]).filter((v) => v.startsWith('1.')).at(-1);
  if (!version) return 'no 1.* version listed';
  const nupkg = await get(`${flat}hubdemo/${version}/hubdemo.${version}.nupkg`, NUGET);
  if (nupkg.status !== 200) return `${version} .nupkg: ${nupkg.status}`;
  if (
    !isZip(nupkg.body) ||
    !nupkg.body.equals(
      fs.readFileSync(path.join(FIXTURES, 'v3-flatcontainer', 'hubdemo', version, `hubdemo.${version}.nupkg`)),
    )
  )
    return `${version} .nupkg: other bytes`;
  return version;
}

t.test('dotnet restore, replayed, of a floating version after the upstream deleted the package', async (t) => {
  const s = await setup(t, { config: { ...OPEN, ...KEPT_AUDIT_CONFIG }, registry: { metadata_ttl_secs: 0 } });
  const listed = await get(`${s.flat}/hubdemo/index.json`, NUGET);
  t.same(listed.json().versions, ['1.0.0', '1.1.0'], 'the upstream lists 1.0.0 and 1.1.0: 1.* would take 1.1.0');
  // hub holds 1.0.0 only (a pinned restore of another project), and has the registration cached.
  t.equal((await get(`${s.flat}/hubdemo/1.0.0/hubdemo.1.0.0.nupkg`, NUGET)).status, 200);
  t.equal((await get(`${s.reg}/hubdemo/index.json`, NUGET)).status, 200);
  await s.hub.artifacts.idle();

  const fresh = await revalidatePackage(s, 'nuget', 'hubdemo');
  t.match(
    fresh,
    { before: ['1.0.0', '1.1.0'], after: ['1.0.0', '1.1.0'], added: [], gone: [] },
    'revalidation reads the same versions from the listing it refetched',
  );
  s.upstream.fault(/^\/v3(-flatcontainer\/hubdemo\/|\/registration-gz-semver2\/hubdemo\/)/, {
    type: 'status',
    status: 404,
    body: 'not found',
  });
  t.match(await restore(s), /^version list: 404/, 'without the audit the restore fails (NU1101)');

  t.match(await sweepUpstream(s, 'nuget'), { outcome: 'ok', disappeared: 1 }, 'the sweep confirms the held 1.0.0 gone');
  t.same(await disappearedVersions(s, 'nuget'), ['hubdemo@1.0.0']);
  t.equal(await restore(s), '1.0.0', 'the kept list offers only what hub holds, so 1.* restores 1.0.0');
  const registration = await get(`${s.reg}/hubdemo/index.json`, NUGET);
  t.equal(registration.status, 200, 'the kept registration is served');
  const leaves = (registration.json().items as Array<{ items?: Array<{ catalogEntry: { version: string } }> }>).flatMap(
    (p) => p.items ?? [],
  );
  t.same(
    leaves.map((l) => l.catalogEntry.version),
    ['1.0.0'],
    'listing only the held version',
  );
  const gone = await revalidatePackage(s, 'nuget', 'hubdemo');
  t.match(gone, { after: [], gone: fresh.after }, 'revalidating the deleted package: every version gone');
  t.ok(
    gone.documents.every((d) => d.outcome === 'not_found'),
    'each listing document answered 404, and its kept copy stays',
  );
});
