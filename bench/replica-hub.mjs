// One replica for bench/two-replicas.mjs: MySQL at $MYSQL_URL, blobs in the shared $BLOBS folder, one static
// registry in front of $UPSTREAM. Prints its URL as a JSON line, stops on SIGTERM.
import cluster from '@hub/cluster';
import staticKind from '@hub-example/kind-static';
import { benchHub } from './bench-hub.mjs';

const dir = process.env.HUB_DIR;
const hub = await benchHub({
  plugins: [staticKind, cluster],
  dir,
  database: `client = "mysql"\nurl = "${process.env.MYSQL_URL}"`,
  blobs: process.env.BLOBS,
  toml: `
[auth]
anonymous = ["source:read"]
[[registries]]
name = "bench"
type = "static"
upstream = "${process.env.UPSTREAM}"
`,
});
process.stdout.write(`${JSON.stringify({ url: await hub.listen() })}\n`);
process.once('SIGTERM', () => void hub.close().then(() => process.exit(0)));
