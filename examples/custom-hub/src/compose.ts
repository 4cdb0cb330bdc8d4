import { createHub, type Hub } from '@hub/runtime';
import npm from '@hub/kind-npm';
import staticKind from '@hub-example/kind-static';

export interface CustomHubOptions {
  npmUpstream: string;
  toolsUpstream: string;
  dataDir: string;
  listen?: string;
  /** Where the one-time bootstrap token line goes (stderr by default). */
  print?: (line: string) => void;
}

/**
 * A hub built in code: exactly two kinds (no other plugin is loaded), configuration as TOML text
 * validated by the same loader as hub.toml, so a typo still names the key and line.
 */
export function composeHub(o: CustomHubOptions): Promise<Hub> {
  return createHub({
    plugins: [npm, staticKind],
    print: o.print,
    configText: `
[server]
listen = "${o.listen ?? '127.0.0.1:8080'}"

[database]
client = "sqlite"
filename = "${o.dataDir}/hub.db"

[storage]
kind = "fs"
path = "${o.dataDir}/blobs"

[auth]
anonymous = ["source:read"]

[[registries]]
name = "npm"
type = "npm"
upstream = "${o.npmUpstream}"

[[registries]]
name = "tools"
type = "static"
upstream = "${o.toolsUpstream}"
`,
  });
}
