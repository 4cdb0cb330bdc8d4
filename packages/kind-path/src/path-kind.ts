import { defineKind, nameAtVersion, type RegistryKind } from '@hub/contract';
import type { PathKindTable } from './classify.js';
import { configSchema, type PathConfig } from './config.js';
import { canonicalFilePath, REPO } from './paths.js';
import { probeFor } from './probe.js';
import { fileRoute, publishRoute } from './routes.js';

/**
 * A path-addressed kind from its table: one route serving `<upstream>/<path>`, the coordinate
 * `repo@<path>` (docs/coordinates.md), and a HEAD probe per held file. No SBOM.
 */
export function definePathKind(table: PathKindTable): RegistryKind<PathConfig> {
  return defineKind<PathConfig>({
    id: table.id,
    contract: 1,
    addressing: 'path',
    description: table.description,
    configSchema,
    coordinate: nameAtVersion({ split: 'first', isName: (name) => name === REPO, normalizeVersion: canonicalFilePath }),
    routes: table.publishable ? [fileRoute(table), publishRoute] : [fileRoute(table)],
    probe: probeFor(table),
  });
}

export type { PathKindTable } from './classify.js';
