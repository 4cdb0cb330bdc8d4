/**
 * What the push routes share: where a hosted repository's files live (blobs and manifests are published files
 * keyed as the pull routes key them, so a pushed image is served by the same routes), and whether a read of a
 * repository is answered here rather than by the upstream.
 */
import { errors, type RequestContext } from '@hub/contract';
import type { OciConfig } from './config.js';
import { isRepository } from './names.js';

type Rc = RequestContext<OciConfig>;

export const API_VERSION_HEADER = { 'docker-distribution-api-version': 'registry/2.0' };

export const blobKey = (repo: string, digest: string) => `blobs/${repo}@${digest}`;
export const manifestKey = (repo: string, digest: string) => `manifests/${repo}@${digest}`;

/** The path clients follow (`Location`): below the root mount, which every container client addresses. */
export const repoPath = (rc: Rc, repo: string) => `/v2/${encodeURIComponent(rc.registry.name)}/${repo}`;

/** A local registry holds every repository; a hybrid one those pushed to it (the upstream is never asked about them). */
export async function servedHere(rc: Rc, repo: string): Promise<boolean> {
  if (rc.registry.mode === 'local') return true;
  if (rc.registry.mode !== 'hybrid') return false;
  return rc.local.ownsName(repo);
}

/**
 * A repository is the registry's from its first pushed blob: a hybrid registry never asks its upstream about it
 * again, and garbage collection finds its blobs (it walks the registry's packages).
 */
export async function claimRepository(rc: Rc, repo: string): Promise<void> {
  if (!(await rc.local.ownsName(repo))) await rc.local.setPackageMeta(repo, { oci: 'pushed' });
}

/** `[...repository, ...words, last?]`: the repository (checked) and what follows the words; null when the path is not this shape. */
export function splitTail(s: readonly string[], words: readonly string[]): { repo: string; rest: string[] } | null {
  for (let i = 1; i + words.length <= s.length; i++) {
    if (words.every((w, j) => s[i + j] === w) && s.length - (i + words.length) <= 1) {
      const repo = s.slice(0, i).join('/');
      if (!isRepository(repo)) throw errors.badRequest(`"${repo.slice(0, 100)}" is not a valid repository name`);
      return { repo, rest: s.slice(i + words.length) };
    }
  }
  return null;
}
