import t from 'tap';
import { kindConformance, pathOf, sendBody, type FixtureHandler, type KindConformanceSpec } from '@hub/testkit';
import { openvsx, vscode_marketplace } from '../src/index.js';
import { VSIX, extensionDoc } from './setup.js';

const VERSIONS = ['0.9.0', '1.0.0'] as const;
const json = (body: Buffer) => JSON.parse(body.toString('utf8')) as Record<string, unknown>;

/** hubpub.hubext with both versions downloadable (the same VSIX bytes), on openvsx's API and the gallery's vspackage path. */
const twoVersions: FixtureHandler = (req, res, up) => {
  const p = pathOf(req.url);
  const send = (type: string, body: Buffer | string) => (sendBody(req, res, 200, { 'content-type': type }, body), true);
  if (p === '/api/hubpub/hubext/versions') {
    const base = `${up.url}/api/hubpub/hubext`;
    return send(
      'application/json',
      JSON.stringify({ offset: 0, totalSize: 2, versions: { '1.0.0': `${base}/1.0.0`, '0.9.0': `${base}/0.9.0` } }),
    );
  }
  const doc = /^\/api\/hubpub\/hubext(?:\/(latest|[0-9.]+))?$/.exec(p);
  if (doc)
    return send(
      'application/json',
      JSON.stringify(extensionDoc(up.url, !doc[1] || doc[1] === 'latest' ? '1.0.0' : doc[1])),
    );
  const file =
    /^\/api\/hubpub\/hubext\/([0-9.]+)\/file\/hubpub\.hubext-\1\.vsix$/.exec(p) ??
    /^\/_apis\/public\/gallery\/publishers\/hubpub\/vsextensions\/hubext\/([0-9.]+)\/vspackage$/.exec(p);
  if (file && (VERSIONS as readonly string[]).includes(file[1]!)) return send('application/octet-stream', VSIX);
  return false;
};

const common = {
  upstream: { handler: twoVersions },
  coordinates: [
    { name: 'hubpub.hubext' },
    { name: 'hubpub.hubext', version: '1.0.0' },
    { name: 'hubpub.hubext', version: '2.0.0-next.1' },
  ],
  pkg: { name: 'hubpub.hubext', versions: VERSIONS },
} satisfies Partial<KindConformanceSpec>;

t.test('the openvsx kind passes kindConformance', (t) =>
  kindConformance(t, {
    ...common,
    kind: openvsx,
    paths: {
      download: (v) => `hubpub.hubext/${v}/vsix`,
      listings: [
        {
          path: 'api/hubpub/hubext/versions',
          lists: (body, v) => v in (json(body).versions as Record<string, unknown>),
        },
        { path: 'api/hubpub/hubext', lists: (body, v) => v in (json(body).allVersions as Record<string, unknown>) },
      ],
      unknown: 'api/hubpub/hubext/1.0.0/reviews/all',
    },
  }),
);

t.test('the vscode-marketplace kind passes kindConformance', (t) =>
  kindConformance(t, {
    ...common,
    kind: vscode_marketplace,
    paths: { download: (v) => `hubpub.hubext/${v}/vsix`, listings: [], unknown: 'api/hubpub/hubext' },
    skip: {
      unlisted:
        'hub serves no marketplace listing: the gallery lists versions only through a POST extensionquery, which hub does not proxy',
    },
  }),
);
