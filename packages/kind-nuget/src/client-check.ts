/** `hub check --nuget NAME` (packages/cli/README.md): the service index, then what a restore does through the flat container. */
import type { ClientCheck } from '@hub/contract';

export const clientCheck: ClientCheck = {
  option: 'nuget-package',
  form: 'id@version',
  fallback: 'newtonsoft.json@13.0.3',
  help: [
    'http: nuget/v3/index.json has version "3.0.0" and resources',
    'tool: the flat container lists the version and its .nupkg is a ZIP',
  ],
  async run(kit, { name: id, version }) {
    const { attempt, get, ok200, jsonOf, zipped, fail, printable, size, seg } = kit;
    let index: Record<string, unknown> | undefined;
    const http = await attempt(async () => {
      const g = ok200(await get('nuget/v3/index.json', 'application/json'));
      index = jsonOf(g);
      if (index.version !== '3.0.0')
        fail(`GET ${g.what}: "version" is ${printable(JSON.stringify(index.version ?? null))}, not "3.0.0"`);
      const resources = index.resources;
      if (!Array.isArray(resources) || !resources.length)
        fail(`GET ${g.what}: "resources" is ${Array.isArray(resources) ? 'empty' : 'missing'}`);
      return `GET ${g.what}: 200, version 3.0.0, ${(resources as unknown[]).length} resources`;
    });
    // What a restore does: the flat container the service index names, the version list, the .nupkg.
    const tool = await attempt(async () => {
      if (!index) return fail('no service index to start from (see the http check)');
      const resources = Array.isArray(index.resources) ? (index.resources as Array<Record<string, unknown>>) : [];
      const flat = resources.find(
        (r) => typeof r?.['@type'] === 'string' && r['@type'].startsWith('PackageBaseAddress/3.0.0'),
      )?.['@id'];
      if (typeof flat !== 'string' || !/^https?:\/\//i.test(flat))
        return fail('the service index names no PackageBaseAddress/3.0.0 resource');
      const root = flat.replace(/\/*$/, '/');
      const list = jsonOf(ok200(await get(`${root}${seg(id)}/index.json`, 'application/json'))).versions;
      if (!Array.isArray(list) || !list.map((x) => String(x).toLowerCase()).includes(version))
        fail(`${printable(root)}${id}/index.json does not list ${version}`);
      const g = zipped(ok200(await get(`${root}${seg(id)}/${seg(version)}/${seg(`${id}.${version}.nupkg`)}`)));
      return `flat container ${printable(root)}: ${id} lists ${version}; .nupkg is a ZIP (${size(g.body.length)})`;
    });
    return { http, tool };
  },
};
