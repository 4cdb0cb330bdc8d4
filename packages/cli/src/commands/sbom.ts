/** sbom: GET /api/v1/admin/sbom/<registry>/<package>/<version> (one held version) or /api/v1/admin/sbom (the inventory). */
import { seg } from '../client.js';
import { adminCommand } from '../command.js';
import { checkOutput, saveExport } from '../export.js';
import { optionOrPositional, str } from '../options.js';
import { UsageError } from '../usage.js';

const FORMATS = ['cyclonedx', 'spdx', 'json'] as const;

export const sbom = adminCommand({
  name: 'sbom',
  help: `Usage: hub sbom --registry R --package P --version V [--format cyclonedx|spdx] [--output FILE]
       hub sbom [--registry R] [--format json|cyclonedx|spdx] [--output FILE]

With a package and version: the SBOM of that version as hub holds it, as CycloneDX 1.6 JSON
(the default) or SPDX 2.3 JSON. It names the version by its purl with the sha256 hub verified
of the bytes it holds, and the dependencies the held artifact's own manifest declares (by name
and range; dev dependencies marked excluded / DEV_DEPENDENCY_OF). 404 when hub holds no file of it.

Without them: the inventory of what hub holds (one registry, or every registry you may read),
each held version with its files and sha256, and who pulled it (allowed downloads per user in
the audit log), as JSON (the default), CycloneDX or SPDX.

Options:
  --registry R       the registry name from hub.toml
  --package P        the canonical package name (npm @scope/name, maven group:artifact)
  --version V        the version
  --format F         cyclonedx or spdx (a version); json, cyclonedx or spdx (the inventory)
  --output FILE      write FILE (only when the download completes) instead of standard output

Needs permission system:read.

Examples:
  hub sbom --registry npm --package @babel/core --version 7.24.0 --format spdx --output core.spdx.json
  hub sbom npm lodash 4.17.21
  hub sbom --registry crates --format cyclonedx --output crates.cdx.json`,
  options: {
    registry: { type: 'string' },
    package: { type: 'string' },
    version: { type: 'string' },
    format: { type: 'string' },
    output: { type: 'string', short: 'o' },
  },
  routes: ['GET /api/v1/admin/sbom/:registry/:package/:version', 'GET /api/v1/admin/sbom'],
  positionals: { min: 0, max: 3 },
  async run({ io, values, positionals, json, api, command }) {
    const registry = optionOrPositional(values, 'registry', positionals[0], command, { required: false });
    const name = optionOrPositional(values, 'package', positionals[1], command, { required: false });
    const version = optionOrPositional(values, 'version', positionals[2], command, { required: false });
    const format = str(values, 'format', command);
    const output = str(values, 'output', command) ?? '-';
    if ((name === undefined) !== (version === undefined))
      throw new UsageError('--package and --version go together (or neither, for the inventory)', command);
    if (name !== undefined && registry === undefined) throw new UsageError('--package needs --registry', command);
    if (format !== undefined && !(FORMATS as readonly string[]).includes(format))
      throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`, command);
    if (format === 'json' && name !== undefined)
      throw new UsageError('the SBOM of a version is cyclonedx or spdx', command);
    checkOutput(output, command);
    if (name !== undefined)
      return saveExport(
        io,
        api,
        `/api/v1/admin/sbom/${seg(registry!)}/${seg(name)}/${seg(version!)}`,
        { format },
        output,
        json,
        'JSON',
      );
    return saveExport(io, api, '/api/v1/admin/sbom', { registry, format }, output, json, 'JSON');
  },
});
