import { defineKind, nameAtVersion, type RegistryKind } from '@hub/contract';
import type { Forge } from './forges.js';
import { forgeRoutes } from './routes.js';

const PROJECT = /^[A-Za-z0-9_][A-Za-z0-9_.-]*(\/[A-Za-z0-9_][A-Za-z0-9_.-]*)+$/;

/**
 * A forge kind from its table entry. Canonical text: `owner/repo` or `owner/repo@tag` (GitLab:
 * `group/sub/project@tag`). Project names never hold `@`, so the first one starts the tag
 * (tags like `pkg@1.0.0` are common). No probe: forge kinds are never audited (packages/audit/README.md).
 */
export function forgeKind(forge: Forge): RegistryKind {
  return defineKind({
    id: forge.id,
    contract: 1,
    addressing: 'forge',
    description: forge.description,
    coordinate: nameAtVersion({
      split: 'first',
      isName: (name) => PROJECT.test(name),
      isVersion: (tag) => !/[/\\\0]/.test(tag),
      // Owners, groups and repositories are case-insensitive on every forge; tags and file names are not.
      normalizeName: (name) => name.toLowerCase(),
    }),
    routes: forgeRoutes(forge),
  });
}
