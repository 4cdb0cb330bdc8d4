/**
 * `hub serve` re-reads its hub.toml on SIGHUP (issue 29, decision 0057): a real process, a real signal. An
 * added registry is served after it; a broken file is refused in the log, naming its line and key, while
 * the configuration in force keeps serving; the process keeps running through both.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startFixtureUpstream } from '@hub/testkit';
import { BIN } from './run-hub.js';

const status = (url: string) =>
  fetch(url).then(
    async (r) => (await r.arrayBuffer(), r.status),
    (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message,
  );

t.test(
  'SIGHUP: a new registry is served, a broken file is refused by line and key, the process keeps serving',
  async (t) => {
    const dir = t.testdir({ up: { 'a.txt': 'file a' }, hub: {} });
    const upstream = await startFixtureUpstream({ root: path.join(dir, 'up') });
    t.teardown(() => upstream.close());
    const config = path.join(dir, 'hub', 'hub.toml');
    const base = `[server]
listen = "127.0.0.1:0"
drain_secs = 0

[database]
client = "sqlite"
filename = "${path.join(dir, 'hub', 'hub.db')}"

[storage]
path = "${path.join(dir, 'hub', 'blobs')}"

[auth]
anonymous = ["source:read"]

[[registries]]
name = "files"
type = "generic"
upstream = "${upstream.url}"
`;
    fs.writeFileSync(config, base);
    const child = spawn(process.execPath, [BIN, 'serve', '--config', config], {
      env: { PATH: process.env.PATH, HUB_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.teardown(() => void (child.exitCode === null && child.kill('SIGKILL')));
    // pino writes to standard output; the start line goes to standard error.
    let log = '';
    child.stdout.on('data', (c: Buffer) => (log += c.toString()));
    let stderr = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /serving (http:\/\/[^/\s]+)\//.exec(stderr);
        if (m) resolve(m[1]!);
      });
      void exited.then(() => reject(new Error(`hub exited before listening: ${stderr}`)));
    });
    const logged = async (pattern: RegExp) => {
      while (!pattern.test(log)) {
        if (child.exitCode !== null) throw new Error(`hub exited: ${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return pattern.exec(log)![0];
    };

    t.equal(await status(`${url}/proxy/files/a.txt`), 200);
    t.equal(await status(`${url}/proxy/more/a.txt`), 404, 'no registry "more" yet');
    fs.writeFileSync(
      config,
      `${base}\n[[registries]]\nname = "more"\ntype = "generic"\nupstream = "${upstream.url}"\n`,
    );
    child.kill('SIGHUP');
    t.match(
      await logged(/[^\n]*"msg":"configuration reloaded"[^\n]*/),
      /"changed_keys":\["registries\.more"\]/,
      'the reload is logged with its changed keys',
    );
    t.equal(await status(`${url}/proxy/more/a.txt`), 200, 'the added registry is served');

    fs.writeFileSync(config, `${base}\n[[registries]]\nname = "more"\ntype = "generic"\nupstream = "not a url"\n`);
    child.kill('SIGHUP');
    const refused = await logged(/[^\n]*"msg":"configuration reload refused[^\n]*/);
    const line = fs.readFileSync(config, 'utf8').split('\n').indexOf('upstream = "not a url"') + 1;
    t.match(
      refused,
      `hub.toml:${line}: registries[1].upstream: must be an http:// or https:// URL`,
      'the refusal names the line and key',
    );
    t.equal(await status(`${url}/proxy/more/a.txt`), 200, 'the configuration in force keeps serving');
    t.equal(child.exitCode, null, 'the process is still running');

    child.kill('SIGTERM');
    t.equal(await exited, 0);
  },
);
