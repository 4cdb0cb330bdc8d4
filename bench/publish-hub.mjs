// The hub of bench/publish.mjs, in its own process (so its RSS is its own): a local npm registry, a publisher's
// token. Prints {url, pid, token} as a JSON line; stops on SIGTERM.
import { holdYoungGeneration } from '@hub/runtime/startup-heap';

holdYoungGeneration();
const { benchHub } = await import('./bench-hub.mjs');

const hub = await benchHub({
  dir: process.env.HUB_DIR,
  toml: `
[[registries]]
name = "internal"
type = "npm"
mode = "local"
max_publish_bytes = ${Number(process.env.MAX_PUBLISH_BYTES)}
`,
});
await hub.services.users.create({ id: 'bench-ci', roles: ['publisher'] });
const { token } = await hub.services.tokens.issue({ user_id: 'bench-ci' });
const url = await hub.listen();
process.stdout.write(`${JSON.stringify({ url, pid: process.pid, token })}\n`);
process.once('SIGTERM', () => void hub.close().then(() => process.exit(0)));
