/**
 * One NuGet version, several spellings (issue 26): `1.0`, `1.0.0` and `1.0.0.0` are one normalized version,
 * so a block, an unlisting or a deletion written in one spelling holds for every other, whichever spelling
 * the row was stored in.
 */
import t from 'tap';
import nuget from '../src/index.js';
import { OPEN, setup, get } from './setup.js';
import { del, dotnetPush, nupkg, tokens } from './push-client.js';

t.test('the codec offers the normalized version as the canonical spelling', async (t) => {
  const canon = nuget.coordinate.canonicalVersion!;
  for (const v of ['1.0', '1.0.0', '1.0.0.0', '01.0.0', '1.0.0+build.5', ' 1.0.0 ']) t.equal(canon(v), '1.0.0', v);
  t.equal(canon('1.0.0.1'), '1.0.0.1');
  t.equal(canon('1.0.0-Beta.1'), '1.0.0-beta.1', 'labels compare case-insensitively');
  t.equal(canon('Not-A-Version'), 'not-a-version');
  for (const v of ['1.0', '1.2.3.4-RC+x', 'junk']) t.equal(canon(canon(v)), canon(v), `idempotent: ${v}`);
});

t.test('a block stored as 1.0 refuses 1.0.0 and 1.0.0.0; an unlisting stored as 1.1.0.0 unlists 1.1.0', async (t) => {
  const s = await setup(t, { config: OPEN });
  await s.hub.services.blocks.add({
    registry: 'nuget',
    package_name: 'hubdep',
    version: '1.0',
    reason: 'bad',
    by: 'admin',
  });
  t.equal(
    await s.hub.services.blocks.add({
      registry: 'nuget',
      package_name: 'hubdep',
      version: '1.0.0.0',
      reason: null,
      by: 'admin',
    }),
    'exists',
    '1.0.0.0 is the block on 1.0',
  );
  for (const url of [
    `${s.flat}/hubdep/1.0.0/hubdep.1.0.0.nupkg`,
    `${s.flat}/HubDep/1.0.0.0/HubDep.1.0.0.0.nupkg`,
    `${s.flat}/hubdep/1.0/hubdep.nuspec`,
    `${s.reg}/hubdep/1.0.0.json`,
  ]) {
    const res = await get(url);
    t.equal(res.status, 403, url);
    t.match(res.json().error.message, /hubdep 1\.0 is blocked by admin: bad/);
  }
  t.equal(s.upstream.count('/v3-flatcontainer/hubdep/1.0.0/hubdep.1.0.0.nupkg'), 0, 'the upstream was not asked');

  await s.hub.services.unlisting.add({ registry: 'nuget', package_name: 'hubdemo', version: '1.1.0.0' }, 'admin');
  const index = (await get(`${s.reg}/hubdemo/index.json`)).json();
  t.same(
    index.items[0].items.map((l: { catalogEntry: { version: string; listed: boolean } }) => [
      l.catalogEntry.version,
      l.catalogEntry.listed,
    ]),
    [
      ['1.0.0', true],
      ['1.1.0', false],
    ],
  );
});

t.test('a version pushed as 1.0 and unpublished as 1.0.0.0 cannot be pushed again in any spelling (409)', async (t) => {
  const s = await setup(t, { config: OPEN, registry: { mode: 'local', upstream: undefined } });
  const { publisher } = await tokens(s);
  t.equal((await dotnetPush(s, publisher, nupkg({ id: 'Acme.Tools', version: '1.0' }))).status, 201);
  // NuGet's DELETE unlists (the version stays pushed); an operator's unpublish deletes, here in another spelling.
  t.equal((await del(s, 'Acme.Tools', '1.0.0.0', publisher)).status, 204, 'unlisted in another spelling');
  const local = s.hub.services.local.forRegistry(
    'nuget',
    { maxPublishBytes: 1 << 20, quotaBytes: 0 },
    'admin',
    nuget.coordinate.normalizeName,
    nuget.coordinate.canonicalVersion,
  );
  t.ok(await local.deleteVersion('Acme.Tools', '1.0.0.0'), 'unpublished as 1.0.0.0');
  for (const v of ['1.0', '1.0.0', '1.0.0.0']) {
    const again = await dotnetPush(s, publisher, nupkg({ id: 'Acme.Tools', version: v }));
    t.equal(again.status, 409, `${v}: ${again.body}`);
    t.match(again.body, /was deleted/);
  }
});
