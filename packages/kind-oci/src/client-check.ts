/** `hub check --oci REPO:TAG` (packages/cli/README.md): the tag's manifest over HTTP, then skopeo inspects the image through hub. */
import type { ClientCheck } from '@hub/contract';
import { MANIFEST_TYPES } from './media-types.js';
import { codec, isTag } from './names.js';

export const clientCheck: ClientCheck<{ name: string; tag: string }> = {
  option: 'oci-image',
  form: 'repository:tag',
  fallback: 'library/busybox:latest',
  help: [
    'http: <repo>/manifests/<tag> is a schema 2 image manifest or index',
    'tool: skopeo inspect docker://<hub>/<registry>/<repo>:<tag>',
  ],
  parse(text) {
    const c = codec.parse(text);
    return c?.version !== undefined && isTag(c.version)
      ? { name: c.name, tag: c.version }
      : 'an image such as library/busybox:latest';
  },
  async run(kit, { name, tag }) {
    const { attempt, get, ok200, jsonOf, fail, printable } = kit;
    const http = await attempt(async () => {
      const g = ok200(await get(`${name}/manifests/${kit.seg(tag)}`, MANIFEST_TYPES.join(', ')));
      const doc = jsonOf(g);
      if (doc.schemaVersion !== 2)
        fail(`GET ${g.what}: schemaVersion is ${printable(JSON.stringify(doc.schemaVersion ?? null))}, not 2`);
      return `GET ${g.what}: 200, ${printable(g.type || 'no media type')}`;
    });
    const tool = await attempt(async () => {
      // The hub's address without /proxy/<name>: container clients take a host, and hub serves /v2/<name>/ there.
      const u = new URL(kit.proxyBase);
      const ref = `docker://${u.host}/${kit.registry}/${name}:${tag}`;
      const args = [
        'inspect',
        '--raw',
        ...(u.protocol === 'http:' ? ['--tls-verify=false'] : []),
        ...(kit.token ? ['--creds', `hub:${kit.token}`] : []),
        ref,
      ];
      const run = await kit.runTool('skopeo', args, { env: kit.env });
      if (!run) return { result: 'skip', detail: 'skopeo is not installed' };
      let doc: { schemaVersion?: unknown };
      try {
        doc = JSON.parse(run.stdout) as typeof doc;
      } catch {
        return fail(`skopeo inspect ${ref}: printed no JSON manifest`);
      }
      if (doc.schemaVersion !== 2)
        fail(`skopeo inspect ${ref}: schemaVersion ${printable(JSON.stringify(doc.schemaVersion ?? null))}`);
      return `skopeo inspect --raw ${ref}: a schema 2 manifest`;
    });
    return { http, tool };
  },
};
