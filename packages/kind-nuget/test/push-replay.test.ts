import t from 'tap';
import { makeZip, rawRequest } from '@hub/testkit';
import { basic, OPEN, setup } from './setup.js';
import { del, dotnetPush, nupkg, publishUrl, pushRequest, tokens } from './push-client.js';

/**
 * Issue 13: `dotnet nuget push` / `dotnet nuget delete` replayed byte for byte (dotnet is not installable here),
 * then read back as a restore reads: service index, flat container version list, .nupkg, .nuspec, registration.
 */

t.test('nuget push to a local registry, then a restore-shaped read back', async (t) => {
  const s = await setup(t, { config: OPEN, registry: { mode: 'local', upstream: undefined } });
  const { publisher } = await tokens(s);
  t.equal(await publishUrl(s), `${s.base}/api/v2/package`, 'the service index names the push endpoint');
  const v1 = nupkg({
    id: 'Acme.Tools',
    version: '1.0.0',
    deps: '<group targetFramework="net8.0"><dependency id="Acme.Core" version="2.0.0" /></group>',
  });
  const beta = nupkg({ id: 'Acme.Tools', version: '1.1.0-Beta.1' });
  const pushed = await dotnetPush(s, publisher, v1);
  t.equal(pushed.status, 201, pushed.body);
  const withApiKey = await pushRequest((await publishUrl(s))!, beta, { 'x-nuget-apikey': publisher });
  t.equal(withApiKey.status, 201, 'the token as the API key (dotnet nuget push --api-key <token>)');

  const flat = `${s.base}/nuget/v3/flatcontainer`;
  const index = await rawRequest(`${flat}/acme.tools/index.json`);
  t.same(index.json(), { versions: ['1.0.0', '1.1.0-beta.1'] }, 'the version list, from the database');
  t.same((await rawRequest(`${flat}/ACME.Tools/index.json`)).json(), index.json(), 'ids compare case-insensitively');
  const bytes = await rawRequest(`${flat}/acme.tools/1.0.0/acme.tools.1.0.0.nupkg`);
  t.equal(bytes.status, 200);
  t.same(bytes.body, v1, 'the .nupkg comes back byte for byte');
  t.same((await rawRequest(`${flat}/acme.tools/1.1.0-beta.1/acme.tools.1.1.0-beta.1.nupkg`)).body, beta);
  const spec = await rawRequest(`${flat}/acme.tools/1.0.0/acme.tools.nuspec`);
  t.match(spec.body.toString(), /<id>Acme\.Tools<\/id>/, 'the .nuspec');

  const reg = (await rawRequest(`${s.base}/nuget/v3/registration/acme.tools/index.json`)).json();
  const leaves = reg.items[0].items as {
    catalogEntry: {
      id: string;
      version: string;
      listed: boolean;
      packageContent: string;
      dependencyGroups: { targetFramework?: string; dependencies: { id: string; range: string }[] }[];
    };
  }[];
  t.same(
    leaves.map((l) => [l.catalogEntry.id, l.catalogEntry.version, l.catalogEntry.listed]),
    [
      ['Acme.Tools', '1.0.0', true],
      ['Acme.Tools', '1.1.0-beta.1', true],
    ],
  );
  t.equal(leaves[0]!.catalogEntry.packageContent, `${flat}/acme.tools/1.0.0/acme.tools.1.0.0.nupkg`);
  t.match(leaves[0]!.catalogEntry.dependencyGroups, [
    { targetFramework: 'net8.0', dependencies: [{ id: 'Acme.Core', range: '2.0.0' }] },
  ]);
  t.equal(
    (await rawRequest(`${s.base}/nuget/v3/registration/acme.tools/1.0.0.json`)).json().listed,
    true,
    'a registration leaf',
  );
  t.equal((await rawRequest(`${flat}/acme.other/index.json`)).status, 404, 'an id nobody published');

  const dup = await dotnetPush(s, publisher, nupkg({ id: 'acme.tools', version: '1.0.0' }));
  t.equal(dup.status, 409, 'the same id (in another case) and version again');
  t.equal(JSON.parse(dup.body).error.code, 'conflict');
  t.equal(
    (await dotnetPush(s, publisher, nupkg({ id: 'Acme.Tools', version: '1.0.0.0' }))).status,
    409,
    '1.0.0.0 is 1.0.0',
  );

  await s.hub.audit.flush();
  const rows = await s.hub
    .db('access_events')
    .where({ action: 'publish' })
    .orderBy('id')
    .select('user_id', 'package', 'version', 'status');
  t.same(
    rows,
    [
      { user_id: 'ci', package: 'acme.tools', version: '1.0.0', status: 201 },
      { user_id: 'ci', package: 'acme.tools', version: '1.1.0-beta.1', status: 201 },
    ],
    'one audit row per push, with its actor',
  );
  t.equal((await s.hub.db('events').where({ type: 'package_published' })).length, 2);
});

t.test(
  'dotnet nuget delete unlists by default; POST relists; the version stays restorable and is never pushed again',
  async (t) => {
    const s = await setup(t, { config: OPEN, registry: { mode: 'local', upstream: undefined } });
    const { publisher } = await tokens(s);
    const pkg = nupkg({ id: 'Acme.Tools', version: '1.0.0' });
    t.equal((await dotnetPush(s, publisher, pkg)).status, 201);
    t.equal((await del(s, 'Acme.Tools', '1.0.0', publisher)).status, 204);
    const reg = (await rawRequest(`${s.base}/nuget/v3/registration/acme.tools/index.json`)).json();
    t.equal(reg.items[0].items[0].catalogEntry.listed, false, 'unlisted in the registration');
    t.same(
      (await rawRequest(`${s.base}/nuget/v3/flatcontainer/acme.tools/index.json`)).json(),
      { versions: ['1.0.0'] },
      'still in the flat container, as in the gallery',
    );
    t.same(
      (await rawRequest(`${s.base}/nuget/v3/flatcontainer/acme.tools/1.0.0/acme.tools.1.0.0.nupkg`)).body,
      pkg,
      'still restorable',
    );
    t.equal((await dotnetPush(s, publisher, pkg)).status, 409, 'an unlisted version is not pushed again');
    t.equal((await del(s, 'Acme.Tools', '1.0.0', publisher, 'POST')).status, 200, 'relist');
    t.equal(
      (await rawRequest(`${s.base}/nuget/v3/registration/acme.tools/index.json`)).json().items[0].items[0].catalogEntry
        .listed,
      true,
    );
    t.equal((await del(s, 'Acme.Tools', '9.9.9', publisher)).status, 404);
    await s.hub.audit.flush();
    t.same(
      (
        await s.hub.db('access_events').whereIn('action', ['yank', 'unyank']).orderBy('id').select('action', 'user_id')
      ).map((r) => [r.action, r.user_id]),
      [
        ['yank', 'ci'],
        ['unyank', 'ci'],
      ],
    );
  },
);

t.test('delete_mode = "delete": the version and its file go, and its number is tombstoned', async (t) => {
  const s = await setup(t, { config: OPEN, registry: { mode: 'local', upstream: undefined, delete_mode: 'delete' } });
  const { publisher } = await tokens(s);
  const pkg = nupkg({ id: 'Acme.Tools', version: '1.0.0' });
  t.equal((await dotnetPush(s, publisher, pkg)).status, 201);
  t.equal((await dotnetPush(s, publisher, nupkg({ id: 'Acme.Tools', version: '1.0.1' }))).status, 201);
  t.equal((await del(s, 'acme.tools', '1.0.0', publisher)).status, 204);
  t.equal(
    (await rawRequest(`${s.base}/nuget/v3/flatcontainer/acme.tools/1.0.0/acme.tools.1.0.0.nupkg`)).status,
    404,
    'the file is gone',
  );
  t.same((await rawRequest(`${s.base}/nuget/v3/flatcontainer/acme.tools/index.json`)).json(), { versions: ['1.0.1'] });
  const again = await dotnetPush(s, publisher, nupkg({ id: 'Acme.Tools', version: '1.0.0' }));
  t.equal(again.status, 409, 'a deleted version number is never pushed again');
  t.match(JSON.parse(again.body).error.message, /deleted/);
  t.equal(
    (await dotnetPush(s, publisher, nupkg({ id: 'Acme.Tools', version: '1.0.2' }))).status,
    201,
    'the id takes new versions',
  );
});

t.test('the refusals', async (t) => {
  const s = await setup(t, { config: OPEN, registry: { mode: 'local', upstream: undefined, max_publish_bytes: 5000 } });
  const { publisher, reader } = await tokens(s);
  const url = `${s.base}/api/v2/package`;
  const ok = nupkg({ id: 'Acme.Tools', version: '1.0.0' });
  const as = (token: string) => basic('ci', token);
  const refusal = async (pkg: Buffer, why: string, status = 400) => {
    const r = await pushRequest(url, pkg, as(publisher));
    t.equal(r.status, status, `${why}: ${r.body}`);
    return r.status === status ? (JSON.parse(r.body) as { error: { code: string; message: string } }).error : undefined;
  };

  const anonymous = await pushRequest(url, ok, {});
  t.equal(anonymous.status, 401, 'the API key alone is not a hub token');
  t.match(
    anonymous.headers['www-authenticate'],
    /Basic/,
    'a Basic challenge, so the client sends its configured credentials',
  );
  t.equal((await pushRequest(url, ok, as(reader))).status, 403, 'a reader may not push');

  t.match(
    (
      await refusal(
        nupkg({ id: 'Acme.Tools', version: '1.0.0', nuspecName: 'Other.nuspec' }),
        'a manifest named for another id',
      )
    )?.message,
    /Other\.nuspec.*Acme\.Tools\.nuspec/,
  );
  t.match(
    (
      await refusal(
        nupkg({
          id: 'Acme.Tools',
          version: '1.0.0',
          nuspec: '<package><metadata><version>1.0.0</version></metadata></package>',
        }),
        'no id',
      )
    )?.message,
    /no <id>/,
  );
  t.match(
    (
      await refusal(
        nupkg({
          id: 'Acme.Tools',
          version: '1.0.0',
          nuspec: '<package><metadata><id>Acme.Tools</id></metadata></package>',
        }),
        'no version',
      )
    )?.message,
    /no <version>/,
  );
  await refusal(
    nupkg({ id: 'Acme.Tools', version: '1.0.0', nuspec: '<package><metadata><id>Acme.Tools</id>' }),
    'malformed XML',
  );
  await refusal(
    nupkg({ id: 'Acme.Tools', version: '1.0.0', nuspec: '<!DOCTYPE x [<!ENTITY a "b">]><package/>' }),
    'a DOCTYPE',
  );
  t.match(
    (
      await refusal(
        nupkg({ id: '../../evil', version: '1.0.0', nuspecName: 'x.nuspec' }),
        'an id that leaves its place',
      )
    )?.message,
    /not a valid NuGet package id/,
  );
  await refusal(
    nupkg({ id: 'Acme.Tools', version: '1.0/../../x', nuspecName: 'Acme.Tools.nuspec' }),
    'a version that leaves its place',
  );
  t.match((await refusal(makeZip({ 'lib/a.dll': 'x' }), 'no .nuspec'))?.message, /no \.nuspec/);
  await refusal(Buffer.from('PK\x03\x04 not really a zip'), 'not a zip');
  const large = await refusal(
    nupkg({ id: 'Acme.Tools', version: '1.0.0', deps: `<!-- ${'x'.repeat(6000)} -->` }),
    'over max_publish_bytes',
    413,
  );
  t.equal(large?.code, 'payload_too_large');

  const raw = await fetch(url, {
    method: 'PUT',
    body: ok,
    headers: { ...as(publisher), 'content-type': 'application/octet-stream' },
  });
  t.equal(raw.status, 400, 'a body that is not multipart/form-data');
  const noFile = await fetch(url, {
    method: 'PUT',
    body: '--b\r\nContent-Disposition: form-data; name=other\r\n\r\nx\r\n--b--\r\n',
    headers: { ...as(publisher), 'content-type': 'multipart/form-data; boundary=b' },
  });
  t.equal(noFile.status, 400, 'a multipart body without a file part');
  const traversal = await rawRequest(`${s.base}/api/v2/package/%2e%2e/1.0.0`, {
    method: 'DELETE',
    headers: as(publisher),
  });
  t.equal(traversal.status, 400, 'a delete path that leaves its place');

  t.same(await s.hub.db('artifacts').select('cache_key'), [], 'no refused package was stored');
  t.same(await s.hub.db('local_versions').select('version'), []);

  const proxy = await setup(t, { config: OPEN });
  const proxyToken = await proxy.token('ci', { roles: ['publisher'] });
  const refused = await pushRequest(`${proxy.base}/api/v2/package`, ok, as(proxyToken));
  t.equal(refused.status, 405, 'a proxy registry takes no push');
  t.equal(JSON.parse(refused.body).error.code, 'method_not_allowed');
  t.notOk(await publishUrl(proxy), 'and its service index names no push endpoint');
});

t.test('hybrid: an id pushed here is never asked of the upstream; other ids still come from it', async (t) => {
  // The upstream fixture serves HubDemo 1.0.0 and 1.1.0, and HubDep 1.0.0.
  const s = await setup(t, { config: OPEN, registry: { mode: 'hybrid' } });
  const { publisher } = await tokens(s);
  // The upstream has the name: an administrator claims it for the registry first (decision 0043).
  const mine = nupkg({ id: 'HubDemo', version: '2.0.0' });
  t.equal(
    (await dotnetPush(s, publisher, mine)).status,
    409,
    'not before an administrator claims the id the upstream has',
  );
  await s.hub.services.local.claim('nuget', 'hubdemo', 'admin');
  // What the refused publish asked is forgotten: from the claim on, the name is never asked about.
  s.upstream.requests.splice(0);
  t.equal((await dotnetPush(s, publisher, mine)).status, 201);
  const flat = `${s.base}/nuget/v3/flatcontainer`;
  t.same(
    (await rawRequest(`${flat}/hubdemo/index.json`)).json(),
    { versions: ['2.0.0'] },
    'local_only: only the pushed version',
  );
  t.same((await rawRequest(`${flat}/hubdemo/2.0.0/hubdemo.2.0.0.nupkg`)).body, mine);
  t.equal(
    (await rawRequest(`${flat}/hubdemo/1.0.0/hubdemo.1.0.0.nupkg`)).status,
    404,
    'the public package of the same name is not served',
  );
  const reg = (await rawRequest(`${s.base}/nuget/v3/registration/hubdemo/index.json`)).json();
  t.same(
    reg.items[0].items.map((l: { catalogEntry: { version: string } }) => l.catalogEntry.version),
    ['2.0.0'],
  );
  t.equal(
    s.upstream.count((r) => /hubdemo/i.test(r.url)),
    0,
    'the upstream was never asked about HubDemo',
  );
  t.same(
    (await rawRequest(`${flat}/hubdep/index.json`)).json(),
    { versions: ['1.0.0'] },
    'an id not pushed here comes from the upstream',
  );

  // With local_only cleared (an operator's choice), the flat container merges both; the local version wins its number.
  await s.hub.db('local_packages').update({ local_only: false });
  t.same((await rawRequest(`${flat}/hubdemo/index.json`)).json(), { versions: ['1.0.0', '1.1.0', '2.0.0'] }, 'merged');
  t.equal(
    (await rawRequest(`${flat}/hubdemo/1.0.0/hubdemo.1.0.0.nupkg`)).status,
    200,
    'an upstream version from the upstream',
  );
  t.same((await rawRequest(`${flat}/hubdemo/2.0.0/hubdemo.2.0.0.nupkg`)).body, mine, 'the local one from here');
});
