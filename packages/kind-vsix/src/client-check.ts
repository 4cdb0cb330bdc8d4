/** `hub check --openvsx NAME` and `--vscode-marketplace NAME` (packages/cli/README.md): the VSIX route; any non-5xx passes over HTTP, the tool needs the ZIP. */
import type { ClientCheck, ClientCheckResponse } from '@hub/contract';

const EXTENSION = /^([A-Za-z0-9][A-Za-z0-9_-]*)\.([A-Za-z0-9][A-Za-z0-9_-]*)@([0-9A-Za-z][0-9A-Za-z.+-]*)$/;
const FALLBACK = 'redhat.vscode-yaml@1.15.0';

export function vsixClientCheck(kind: 'openvsx' | 'vscode-marketplace'): ClientCheck<{ id: string; version: string }> {
  return {
    option: `${kind}-extension`,
    form: 'publisher.extension@version',
    fallback: FALLBACK,
    help: [
      'http: <publisher>.<extension>/<version>/vsix answers anything but 5xx',
      'tool: the same is a ZIP (skipped on 404)',
    ],
    parse(v) {
      const m = EXTENSION.exec(v);
      if (!m) return `an extension and version such as ${FALLBACK}`;
      return { id: `${m[1]}.${m[2]}`, version: m[3]! };
    },
    async run(kit, { id, version }) {
      const route = `${kit.seg(id)}/${kit.seg(version)}/vsix`;
      let got: ClientCheckResponse | undefined;
      const http = await kit.attempt(async () => {
        got = await kit.get(route);
        if (got.status >= 500) kit.fail(`GET ${got.what}: ${kit.statusText(got)}`);
        return `GET ${got.what}: ${got.status === 200 ? 'HTTP 200' : kit.statusText(got)}`;
      });
      const tool = await kit.attempt(async () => {
        const g = got ?? (await kit.get(route));
        if (g.status === 404) return { result: 'skip', detail: `${id}@${version} not found (404), nothing to install` };
        kit.zipped(kit.ok200(g));
        return `${id}@${version}: ZIP (${kit.size(g.body.length)})`;
      });
      return { http, tool };
    },
  };
}
