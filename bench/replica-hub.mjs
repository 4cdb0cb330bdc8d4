// One replica for bench/two-replicas.mjs: MySQL at $MYSQL_URL, blobs in the shared $BLOBS folder, one static
// registry in front of $UPSTREAM. Prints its URL as a JSON line, stops on SIGTERM.
import fs from 'node:fs';
import { createHub } from '@hub/runtime';
import { createLogger } from '@hub/runtime/internal';
import staticKind from '@hub-example/kind-static';

const dir = process.env.HUB_DIR;
const hub = await createHub({
  plugins: [staticKind],
  configText: `
[database]
client = "mysql"
url = "${process.env.MYSQL_URL}"
[storage]
kind = "fs"
path = "${process.env.BLOBS}"
[auth]
anonymous = ["source:read"]
[limits]
rate_per_ip = 1000000000
burst_per_ip = 1000000000
[[registries]]
name = "bench"
type = "static"
upstream = "${process.env.UPSTREAM}"
`,
  env: { HUB_ADMIN_TOKEN: 'hub_bench_admin_token_0123456789abcdef' },
  logger: createLogger({ level: 'warn', destination: fs.createWriteStream(`${dir}/hub.log`) }),
  print: () => {},
});
process.stdout.write(`${JSON.stringify({ url: await hub.listen('127.0.0.1:0') })}\n`);
process.once('SIGTERM', () => void hub.close().then(() => process.exit(0)));
