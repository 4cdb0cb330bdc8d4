// The hub process metadata-memory.mjs measures: default settings, one npm registry in front of $UPSTREAM.
import fs from 'node:fs';
import { createHub } from '@hub/runtime';
import { createLogger } from '@hub/runtime/internal';
import npm from '@hub/kind-npm';

const dir = process.env.HUB_DIR;
const hub = await createHub({
  plugins: [npm],
  configText: `
[database]
client = "sqlite"
filename = "${dir}/hub.db"
[storage]
kind = "fs"
path = "${dir}/blobs"
[auth]
anonymous = ["source:read"]
[limits]
rate_per_ip = 1000000000
burst_per_ip = 1000000000
[[registries]]
name = "npm"
type = "npm"
upstream = "${process.env.UPSTREAM}"
`,
  env: { HUB_ADMIN_TOKEN: 'hub_bench_admin_token_0123456789abcdef' },
  logger: createLogger({ level: 'warn', destination: fs.createWriteStream(`${dir}/hub.log`) }),
  print: () => {},
});
process.stdout.write(`${JSON.stringify({ url: await hub.listen('127.0.0.1:0') })}\n`);
process.once('SIGTERM', () => void hub.close().then(() => process.exit(0)));
