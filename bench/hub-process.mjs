// One hub for bench/run.mjs, in its own process (so its CPU time and RSS are its own): the plugins `hub serve`
// loads for its config, an npm registry in front of $UPSTREAM, logging and the audit log on, rate limits out of the way.
// $AUTH=token: no anonymous reads, and a reader's token is printed. Prints {url, pid, token} as a JSON line;
// stops on SIGTERM.
import { holdYoungGeneration } from '@hub/runtime/startup-heap';

// As `hub serve` starts: the young generation held while the runtime and plugins load (decision 0032).
holdYoungGeneration();
const { benchHub } = await import('./bench-hub.mjs');

const dir = process.env.HUB_DIR;
const token = process.env.AUTH === 'token';
const hub = await benchHub({
  dir,
  logLevel: 'info',
  toml: `
[auth]
anonymous = ${token ? '[]' : '["source:read"]'}
[cache]
verify_reads = ${process.env.VERIFY_READS === 'false' ? 'false' : 'true'}
[[registries]]
name = "npm"
type = "npm"
upstream = "${process.env.UPSTREAM}"
`,
});
let issued;
if (token) {
  await hub.services.users.create({ id: 'bench-reader', roles: ['reader'] });
  issued = (await hub.services.tokens.issue({ user_id: 'bench-reader' })).token;
}
const url = await hub.listen();
process.stdout.write(`${JSON.stringify({ url, pid: process.pid, token: issued })}\n`);
process.once('SIGTERM', () => void hub.close().then(() => process.exit(0)));
