/** `hub check --terraform NAME` (packages/cli/README.md): the provider's versions, then the download document terraform reads. */
import type { ClientCheck } from '@hub/contract';

const TF =
  /^([A-Za-z0-9][A-Za-z0-9_-]*)\/([A-Za-z0-9][A-Za-z0-9_-]*)@([0-9A-Za-z][0-9A-Za-z.+-]*)(?:\/([a-z0-9]+)_([a-z0-9]+))?$/;

export const clientCheck: ClientCheck<{ ns: string; type: string; version: string; os: string; arch: string }> = {
  option: 'terraform-provider',
  form: 'ns/type@version[/os_arch]',
  fallback: 'hashicorp/null@3.2.2/linux_amd64',
  help: [
    'http: v1/providers/<ns>/<type>/versions lists at least one version',
    'tool: the version\'s download document has "download_url" (skipped on 404)',
  ],
  parse(v) {
    const m = TF.exec(v);
    if (!m) return 'a provider such as hashicorp/null@3.2.2/linux_amd64';
    return { ns: m[1]!, type: m[2]!, version: m[3]!, os: m[4] ?? 'linux', arch: m[5] ?? 'amd64' };
  },
  async run(kit, p) {
    const { attempt, get, ok200, jsonOf, fail, printable, seg } = kit;
    const provider = `v1/providers/${seg(p.ns)}/${seg(p.type)}`;
    const http = await attempt(async () => {
      const g = ok200(await get(`${provider}/versions`, 'application/json'));
      const versions = jsonOf(g).versions;
      if (!Array.isArray(versions) || !versions.length)
        return fail(`GET ${g.what}: "versions" is ${Array.isArray(versions) ? 'empty' : 'missing'}`);
      return `GET ${g.what}: 200, ${versions.length} version${versions.length === 1 ? '' : 's'}`;
    });
    const tool = await attempt(async () => {
      const g = await get(`${provider}/${seg(p.version)}/download/${seg(p.os)}/${seg(p.arch)}`, 'application/json');
      if (g.status === 404)
        return { result: 'skip', detail: `${p.ns}/${p.type} ${p.version} for ${p.os}_${p.arch} not found (404)` };
      const url = jsonOf(ok200(g)).download_url;
      if (typeof url !== 'string' || !url) return fail(`GET ${g.what}: no "download_url" in the download document`);
      // hub's download_url is signed: the signature stays out of the output.
      return `GET ${g.what}: 200, download_url ${printable(url.replace(/[?#].*$/s, ''))}`;
    });
    return { http, tool };
  },
};
