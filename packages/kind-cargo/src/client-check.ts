/** `hub check --cargo NAME` (packages/cli/README.md): the index configuration, then cargo itself through the sparse index. */
import fs from 'node:fs';
import path from 'node:path';
import type { ClientCheck } from '@hub/contract';

export const clientCheck: ClientCheck = {
  option: 'cargo-crate',
  form: 'name@version',
  fallback: 'cfg-if@1.0.0',
  help: [
    'http: registry/config.json is 200 with "dl"',
    'tool: cargo fetch of the crate through the sparse index (skipped without cargo)',
  ],
  async run(kit, { name: crate, version }) {
    const { attempt, get, ok200, jsonOf, fail, printable, runTool, inTempDir } = kit;
    const http = await attempt(async () => {
      const g = ok200(await get('registry/config.json', 'application/json'));
      const dl = jsonOf(g).dl;
      if (typeof dl !== 'string' || !dl) return fail(`GET ${g.what}: no "dl" in the index configuration`);
      return `GET ${g.what}: 200, dl ${printable(dl)}`;
    });
    const tool = await attempt(async () => {
      const probe = await runTool('cargo', ['--version'], { env: kit.env }).catch((e: Error) => e);
      if (!probe) return { result: 'skip', detail: 'cargo not installed' };
      if (probe instanceof Error) return { result: 'skip', detail: `cargo is not usable: ${probe.message}` };
      const m = /^cargo (\d+)\.(\d+)/.exec(probe.stdout);
      if (!m || Number(m[1]) < 1 || (Number(m[1]) === 1 && Number(m[2]) < 74))
        return {
          result: 'skip',
          detail: `${printable(probe.stdout.trim())} is too old (sparse registries with tokens need 1.74)`,
        };
      return inTempDir('hub-check-cargo-', async (dir) => {
        const home = path.join(dir, 'cargo-home');
        fs.mkdirSync(home);
        fs.mkdirSync(path.join(dir, 'app', 'src'), { recursive: true });
        const index = `sparse+${kit.proxyBase}/registry/`;
        fs.writeFileSync(
          path.join(home, 'config.toml'),
          `[registries.hub]\nindex = ${JSON.stringify(index)}\n\n[registry]\nglobal-credential-providers = ["cargo:token"]\n\n[net]\nretry = 0\n`,
        );
        fs.writeFileSync(
          path.join(dir, 'app', 'Cargo.toml'),
          `[package]\nname = "hub-check"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n${JSON.stringify(crate)} = { version = ${JSON.stringify(`=${version}`)}, registry = "hub" }\n`,
        );
        fs.writeFileSync(path.join(dir, 'app', 'src', 'lib.rs'), '');
        const env: NodeJS.ProcessEnv = {
          ...kit.env,
          CARGO_HOME: home,
          CARGO_TARGET_DIR: path.join(dir, 'target'),
          CARGO_TERM_COLOR: 'never',
          CARGO_HTTP_TIMEOUT: '60',
          RUSTUP_AUTO_INSTALL: '0',
        };
        if (kit.token) env.CARGO_REGISTRIES_HUB_TOKEN = kit.token;
        else delete env.CARGO_REGISTRIES_HUB_TOKEN;
        await runTool('cargo', ['fetch'], { cwd: path.join(dir, 'app'), env });
        const lock = fs.readFileSync(path.join(dir, 'app', 'Cargo.lock'), 'utf8');
        if (!lock.includes(`name = "${crate}"\nversion = "${version}"`))
          fail(`cargo fetch ran but Cargo.lock does not hold ${crate} ${version}`);
        return `cargo fetch resolved ${crate} ${version} through ${printable(index)}`;
      });
    });
    return { http, tool };
  },
};
