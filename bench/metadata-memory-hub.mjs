// The hub process metadata-memory.mjs measures: default settings, one npm registry in front of $UPSTREAM.
import npm from '@hub/kind-npm';
import { benchHub } from './bench-hub.mjs';

const dir = process.env.HUB_DIR;
const hub = await benchHub({
  plugins: [npm],
  dir,
  toml: `
[auth]
anonymous = ["source:read"]
[[registries]]
name = "npm"
type = "npm"
upstream = "${process.env.UPSTREAM}"
`,
});
process.stdout.write(`${JSON.stringify({ url: await hub.listen() })}\n`);
process.once('SIGTERM', () => void hub.close().then(() => process.exit(0)));
