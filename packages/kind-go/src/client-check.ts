/** `hub check --go NAME` (packages/cli/README.md): @latest, then go mod download with the hub as the only proxy. */
import fs from 'node:fs';
import path from 'node:path';
import type { ClientCheck } from '@hub/contract';
import { escapePath } from './module-path.js';

export const clientCheck: ClientCheck = {
  option: 'go-module',
  form: 'path@version',
  fallback: 'rsc.io/quote@v1.5.2',
  help: [
    'http: <module>/@latest is 200 JSON with "Version"',
    'tool: go mod download <module>@<version> with GOPROXY set to the hub alone and',
    'no checksum database (skipped without go; go sends tokens only over https)',
  ],
  async run(kit, { name: module, version }) {
    const { attempt, get, ok200, jsonOf, fail, printable, runTool, inTempDir } = kit;
    const http = await attempt(async () => {
      const g = ok200(await get(`${escapePath(module)}/@latest`, 'application/json'));
      const v = jsonOf(g).Version;
      if (typeof v !== 'string' || !v) return fail(`GET ${g.what}: no "Version" in the answer`);
      return `GET ${g.what}: 200, Version ${printable(v)}`;
    });
    const tool = await attempt(async () => {
      const probe = await runTool('go', ['version'], { env: kit.env }).catch((e: Error) => e);
      if (!probe) return { result: 'skip', detail: 'go not installed' };
      if (probe instanceof Error) return { result: 'skip', detail: `go is not usable: ${probe.message}` };
      return inTempDir('hub-check-go-', async (dir) => {
        const base = new URL(kit.proxyBase);
        // go sends credentials only over https, from .netrc.
        if (kit.token && base.protocol === 'https:')
          fs.writeFileSync(path.join(dir, '.netrc'), `machine ${base.hostname} login hub password ${kit.token}\n`, {
            mode: 0o600,
          });
        fs.writeFileSync(path.join(dir, 'go.mod'), 'module hubcheck\n\ngo 1.16\n');
        const env = {
          ...kit.env,
          HOME: dir,
          NETRC: path.join(dir, '.netrc'),
          GOENV: 'off',
          GOPATH: path.join(dir, 'gopath'),
          GOMODCACHE: path.join(dir, 'modcache'),
          GOCACHE: path.join(dir, 'gocache'),
          GOPROXY: kit.proxyBase,
          GOFLAGS: '-mod=mod -modcacherw',
          GOSUMDB: 'off',
          GONOSUMDB: '*',
          GONOPROXY: '',
          GOPRIVATE: '',
          GOTOOLCHAIN: 'local',
        };
        const out = await runTool('go', ['mod', 'download', '-json', `${module}@${version}`], { cwd: dir, env }).catch(
          (e: Error) => {
            const m = /"Error":\s*"((?:[^"\\]|\\.)*)"/.exec(e.message);
            const hint =
              /401|403/.test(e.message) && !kit.token
                ? ' (no token given)'
                : /401/.test(e.message) && base.protocol === 'http:'
                  ? ' (go sends credentials only over https)'
                  : '';
            return fail(
              `go mod download ${module}@${version}: ${m ? printable(JSON.parse(`"${m[1]}"`) as string) : e.message}${hint}`,
            );
          },
        );
        const r = JSON.parse(out!.stdout) as { Error?: string; Zip?: string; Version?: string };
        if (r.Error || !r.Zip) fail(`go mod download ${module}@${version}: ${printable(r.Error ?? 'no zip')}`);
        return `go mod download ${module}@${version} with GOPROXY=${printable(kit.proxyBase)} only: ok`;
      });
    });
    return { http, tool };
  },
};
