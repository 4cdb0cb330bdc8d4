import Type from 'typebox';
import { defineKind } from '@hub/runtime';
import { clientCheck } from './client-check.js';
import { isGoVersion } from './module-path.js';
import { probe } from './probe.js';
import { routes, type GoConfig } from './routes.js';
import { sbom } from './sbom.js';

export const configSchema = Type.Object(
  {
    checksum_db: Type.Optional(
      Type.String({ pattern: '^https?://', description: 'Base URL of the checksum database that /proxy/<name>/sumdb/<db-name>/... passes through to' }),
    ),
  },
  { additionalProperties: false },
);

/** go: the GOPROXY protocol (list, info, mod, zip, @latest) and checksum-database pass-through. */
export default defineKind<GoConfig>({
  id: 'go',
  contract: 1,
  addressing: 'package',
  description: 'Go modules through the module proxy protocol',
  configSchema,
  coordinate: {
    parse(text) {
      const at = text.lastIndexOf('@');
      const [name, version] = at > 0 ? [text.slice(0, at), text.slice(at + 1)] : [text, undefined];
      if (!/^[A-Za-z0-9._~/-]+$/.test(name) || name.startsWith('/') || name.endsWith('/')) return null;
      if (version !== undefined && !isGoVersion(version)) return null;
      return version ? { name, version } : { name };
    },
    format: (c) => (c.version ? `${c.name}@${c.version}` : c.name),
  },
  routes,
  clientCheck,
  probe,
  sbom,
});
