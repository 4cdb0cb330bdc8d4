import { defineKind, errors, reply, type KindRoute, type RegistryKind } from '@hub/contract';

/**
 * A minimal kind for tests of the runtime and its plugins: `/<pkg>/<version>/<file>` is an artifact fetched from
 * `<upstream>/<pkg>/<version>/<file>`; `/meta/<pkg>` is a metadata document from `<upstream>/<pkg>.json`.
 * Files named `*.gz` must start with the gzip magic bytes; `*.zip` files get the runtime's zip checks.
 */
const file: KindRoute = {
  id: 'file',
  match: (s) =>
    s.length === 3 && s[0] !== 'meta' ? { coordinate: { name: s[0]!, version: s[1]! }, params: { file: s[2]! } } : null,
  handle: (rc, m) =>
    rc.artifact({
      key: `${m.coordinate!.name}/${m.coordinate!.version}/${m.params!.file}`,
      coordinate: m.coordinate!,
      contentType: 'application/octet-stream',
      format: m.params!.file!.endsWith('.zip') ? 'zip' : undefined,
      checkHead: m.params!.file!.endsWith('.gz')
        ? (h) => (h[0] === 0x1f && h[1] === 0x8b ? null : 'not gzip')
        : undefined,
      source: async () => {
        const digest = rc.query.get('sha256');
        return {
          url: `${rc.registry.upstream}/${m.coordinate!.name}/${m.coordinate!.version}/${m.params!.file}`,
          digest: digest ? { algorithm: 'sha256', hex: digest } : undefined,
        };
      },
    }),
};

const meta: KindRoute = {
  id: 'meta',
  match: (s) => (s.length === 2 && s[0] === 'meta' ? { coordinate: { name: s[1]! } } : null),
  async handle(rc, m) {
    const doc = await rc.metadata({
      key: `meta:${m.coordinate!.name}`,
      url: `${rc.registry.upstream}/${m.coordinate!.name}.json`,
      check: (b) => (b.toString().trimStart().startsWith('{') ? null : 'not JSON'),
    });
    return reply.bytes(doc.body, 'application/json', doc.stale ? { 'x-hub-stale': '1' } : {});
  },
};

export const filesKind: RegistryKind = defineKind({
  id: 'files',
  contract: 1,
  addressing: 'package',
  description: 'test kind',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [file, meta],
  probe: async () => {
    throw errors.internal('not used');
  },
});
