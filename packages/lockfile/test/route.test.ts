import t from 'tap';
import { lockfileHub } from './hub.js';

/** The check route refuses cleanly (docs/errors.md, no stack), and asks for the permissions it names. */
const LOCK = JSON.stringify({
  lockfileVersion: 3,
  packages: {
    'node_modules/hubdep': { version: '1.0.0', resolved: 'https://upstream.example/hubdep/-/hubdep-1.0.0.tgz' },
  },
});

t.test('refusals', async (t) => {
  const hub = await lockfileHub(t);
  const error = (r: { status: number; body: any }, status: number, code: string, message: RegExp) => {
    t.equal(r.status, status, JSON.stringify(r.body));
    t.equal(r.body.error?.code, code);
    t.match(r.body.error?.message, message);
    t.notMatch(JSON.stringify(r.body), /at .*\.js:\d+/, 'no stack');
  };
  error(
    await hub.check({ lockfile: `${'['.repeat(100_000)}${']'.repeat(100_000)}`, format: 'package-lock' }),
    400,
    'bad_request',
    /nests|not valid JSON/,
  );
  error(await hub.check({ lockfile: 'x'.repeat(2 << 20) }), 413, 'payload_too_large', /./);
  error(await hub.check({ lockfile: LOCK, format: 'npm-shrinkwrap' }), 400, 'bad_request', /format/);
  error(await hub.check({ lockfile: 'nothing to see' }), 400, 'bad_request', /cannot tell the lockfile's format/);
  error(await hub.check({ lockfile: LOCK, registry: 'nope' }), 404, 'not_found', /no registry named "nope"/);
  error(await hub.check({ lockfile: LOCK, mark_required: '../etc' }), 400, 'bad_request', /mark_required/);
  error(
    await hub.check({ lockfile: 'hubdep==1.0', file_name: 'requirements.txt', registry: 'npm' }),
    400,
    'bad_request',
    /registry "npm" is of type npm; this lockfile is pypi/,
  );

  const reader = await hub.token('dev', { roles: ['reader'] });
  error(await hub.check({ lockfile: LOCK }, reader), 403, 'forbidden', /system:read/);
  const auditor = await hub.token('auditor', { roles: ['auditor'] });
  t.equal((await hub.check({ lockfile: LOCK }, auditor)).status, 200, 'system:read checks');
  error(await hub.check({ lockfile: LOCK, mark_required: 'rel' }, auditor), 403, 'forbidden', /system:write/);
  t.same(await hub.hub.services.holds.list(), [], 'nothing held');
  const ok = await hub.check({ lockfile: LOCK, mark_required: 'rel' });
  t.equal(ok.status, 200);
  t.equal(ok.body.marked, 1, 'a fetchable entry is marked too');
  t.same(
    (await hub.hub.services.holds.list()).map((h) => h.reason),
    ['lockfile:rel'],
  );
});
