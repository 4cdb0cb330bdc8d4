import path from 'node:path';
import t from 'tap';
import { filesKind, rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { defineKind, errors, reply } from '../src/index.js';

/**
 * Decision 0025: a kind with `rootMount` is also served at `/<mount>/<registry>/...`; `/<mount>/` goes to the
 * route matching no segments in the first registry of the kind the request may read; `errorBody` adds members
 * beside `error`, never replacing it.
 */
const mounted = defineKind({
  id: 'mounted',
  contract: 1,
  addressing: 'package',
  description: 'test kind at the host root',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  rootMount: 'r2',
  routes: [
    {
      id: 'root',
      match: (s) => (s.length === 0 ? {} : null),
      handle: async (rc) => reply.json({ registry: rc.registry.name }),
    },
    {
      id: 'thing',
      match: (s) => {
        if (s.length !== 2 || s[0] !== 'thing') return null;
        if (!/^[a-z]+$/.test(s[1]!)) throw errors.badRequest('not a thing name');
        return { coordinate: { name: s[1]! } };
      },
      handle: async (_rc, m) =>
        m.coordinate!.name === 'missing'
          ? Promise.reject(errors.notFound('no such thing'))
          : reply.json({ thing: m.coordinate!.name }),
    },
  ],
  errorBody: (e) => ({ error: 'replaced?', errors: [{ code: e.code.toUpperCase(), route: e.route ?? null }] }),
});

t.test(
  "a root-mounted kind: its registries below the mount, the mount root, and error bodies beside hub's",
  async (t) => {
    const root = t.testdir({ up: {}, hub: {} });
    const upstream = await startFixtureUpstream({ root: path.join(root, 'up') });
    t.teardown(() => upstream.close());
    const hub = await startTestHub({
      dir: path.join(root, 'hub'),
      plugins: [mounted, filesKind],
      registries: [
        { name: 'private', type: 'mounted', upstream: upstream.url },
        { name: 'open', type: 'mounted', upstream: upstream.url },
        { name: 'files', type: 'files', upstream: upstream.url },
      ],
      config: {
        auth: {
          anonymous: [],
          policies: [{ effect: 'deny', users: ['ci'], permissions: ['source:read'], registries: ['private'] }],
        },
      },
    });
    t.teardown(() => hub.close());
    // ci may read `open` but not `private`, the first registry of the kind.
    const basic = {
      authorization: `Basic ${Buffer.from(`ci:${await hub.token('ci', { roles: ['reader'] })}`).toString('base64')}`,
    };

    const thing = await rawRequest(`${hub.url}/r2/open/thing/abc`, { headers: basic });
    t.equal(thing.status, 200);
    t.same(thing.json(), { thing: 'abc' });
    t.same(
      (await rawRequest(`${hub.url}/proxy/open/thing/abc`, { headers: basic })).json(),
      { thing: 'abc' },
      'and below /proxy/<name>/',
    );
    t.same(
      (await rawRequest(`${hub.url}/r2/`, { headers: basic })).json(),
      { registry: 'open' },
      'the mount root: the first registry the request may read',
    );
    t.equal((await rawRequest(`${hub.url}/r2/`)).status, 401, 'without credentials, where nothing is anonymous: 401');
    t.equal(
      (await rawRequest(`${hub.url}/r2/files/pkg/1.0.0/a.txt`, { headers: basic })).status,
      404,
      'a registry of another kind is not below the mount',
    );
    t.equal(
      (await rawRequest(`${hub.url}/r3/open/thing/abc`, { headers: basic })).status,
      404,
      'no other first segment',
    );

    const missing = await rawRequest(`${hub.url}/r2/open/thing/missing`, { headers: basic });
    t.equal(missing.status, 404);
    t.equal(missing.json().error.code, 'not_found', "hub's `error` stays, whatever the kind returns");
    t.same(missing.json().errors, [{ code: 'NOT_FOUND', route: 'thing' }], "the kind's members beside it");
    const bad = await rawRequest(`${hub.url}/r2/open/thing/ABC`, { headers: basic });
    t.same(bad.json().errors, [{ code: 'BAD_REQUEST', route: 'thing' }], 'a match that throws names its route');
    t.match(bad.headers.get('x-request-id'), /./);
  },
);
