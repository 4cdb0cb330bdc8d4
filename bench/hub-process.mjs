// One hub for bench/run.mjs, in its own process (so its CPU time and RSS are its own): the default distribution's
// plugins, an npm registry in front of $UPSTREAM, logging and the audit log on, rate limits out of the way.
// $AUTH=token: no anonymous reads, and a reader's token is printed. Prints {url, pid, token} as a JSON line;
// stops on SIGTERM.
import fs from 'node:fs';
import { holdYoungGeneration } from '@hub/runtime/startup-heap';

// As `hub serve` starts: the young generation held while the runtime and plugins load (decision 0032).
holdYoungGeneration();
const { createHub } = await import('@hub/runtime');
const { createLogger } = await import('@hub/runtime/internal');
const { defaultPlugins } = await import('../packages/cli/dist/src/plugins.js');

const dir = process.env.HUB_DIR;
const token = process.env.AUTH === 'token';
const hub = await createHub({
  plugins: await defaultPlugins(),
  configText: `
[server]
listen = "127.0.0.1:0"
[database]
client = "sqlite"
filename = "${dir}/hub.db"
[storage]
kind = "fs"
path = "${dir}/blobs"
[auth]
anonymous = ${token ? '[]' : '["source:read"]'}
[limits]
# One client address drives all the load: keep the per-IP limiter out of the measurement.
rate_per_ip = 1000000000
burst_per_ip = 1000000000
[cache]
verify_reads = ${process.env.VERIFY_READS === 'false' ? 'false' : 'true'}
[[registries]]
name = "npm"
type = "npm"
upstream = "${process.env.UPSTREAM}"
`,
  env: { HUB_ADMIN_TOKEN: 'hub_bench_admin_token_0123456789abcdef' },
  logger: createLogger({ level: 'info', destination: fs.createWriteStream(`${dir}/hub.log`) }),
  print: () => {},
});
let issued;
if (token) {
  await hub.services.users.create({ id: 'bench-reader', roles: ['reader'] });
  issued = (await hub.services.tokens.issue({ user_id: 'bench-reader' })).token;
}
const url = await hub.listen();
process.stdout.write(`${JSON.stringify({ url, pid: process.pid, token: issued })}\n`);
process.once('SIGTERM', () => void hub.close().then(() => process.exit(0)));
