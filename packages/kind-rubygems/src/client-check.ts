/** `hub check --rubygems NAME` (packages/cli/README.md): the gem API's name, then the .gem is a tar holding the two parts gem reads. */
import type { ClientCheck } from '@hub/contract';

export const clientCheck: ClientCheck = {
  option: 'rubygems-gem',
  form: 'name@version',
  fallback: 'rake@13.2.1',
  help: [
    'http: api/v1/gems/<gem>.json has "name" equal to the gem',
    'tool: gems/<gem>-<version>.gem is a POSIX tar holding metadata.gz and data.tar.gz',
  ],
  async run(kit, { name: gem, version }) {
    const { attempt, get, ok200, jsonOf, fail, printable, seg } = kit;
    const http = await attempt(async () => {
      const g = ok200(await get(`api/v1/gems/${seg(gem)}.json`, 'application/json'));
      const name = jsonOf(g).name;
      if (name !== gem) fail(`GET ${g.what}: "name" is ${printable(JSON.stringify(name ?? null))}, not "${gem}"`);
      return `GET ${g.what}: 200, name ${gem}`;
    });
    const tool = await attempt(async () => {
      const g = ok200(await get(`gems/${seg(`${gem}-${version}.gem`)}`));
      let names: string[];
      try {
        names = await kit.tarEntries(g.body);
      } catch (e) {
        return fail(`GET ${g.what}: 200 but not a POSIX tar: ${(e as Error).message}`);
      }
      const missing = ['metadata.gz', 'data.tar.gz'].filter((n) => !names.includes(n));
      if (missing.length)
        fail(
          `GET ${g.what}: the tar holds no ${missing.join(' or ')} (entries: ${printable(names.join(', ') || 'none')})`,
        );
      return `GET ${g.what}: 200, POSIX tar with metadata.gz and data.tar.gz`;
    });
    return { http, tool };
  },
};
