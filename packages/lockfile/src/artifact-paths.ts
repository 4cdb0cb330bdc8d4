/**
 * Where an entry's files are under hub's own registry routes (`/proxy/<registry>/...`): what warming requests,
 * so each file comes through the normal path (cache, verification, blocks, cool-down, audit). Also which held
 * files of a version are the ones a lockfile's digest is about.
 */
import type { Ecosystem, LockEntry } from './entry.js';

/** go's module path escaping: an upper-case letter is `!` and the letter in lower case. */
const goEscape = (s: string): string => s.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);

const enc = encodeURIComponent;

/** Paths below `/proxy/<registry>/`; empty for a PyPI entry whose files the lockfile does not name (found from the project page). */
export function artifactPaths(e: LockEntry, canonicalName: string): string[] {
  switch (e.ecosystem) {
    case 'npm': {
      const base = e.name.split('/').pop()!;
      const name = e.name.startsWith('@') ? `${enc(e.name.split('/')[0]!)}/${enc(base)}` : enc(e.name);
      return [`${name}/-/${enc(base)}-${enc(e.version)}.tgz`];
    }
    case 'cargo':
      return [`api/v1/crates/${enc(e.name)}/${enc(e.version)}/download`];
    case 'go':
      return e.files?.includes('go.mod')
        ? [`${goEscape(e.name)}/@v/${enc(goEscape(e.version))}.mod`]
        : [`${goEscape(e.name)}/@v/${enc(goEscape(e.version))}.zip`];
    case 'rubygems':
      return [`gems/${enc(e.name)}-${enc(e.version)}.gem`];
    case 'nuget': {
      const id = e.name.toLowerCase();
      const v = e.version.toLowerCase();
      return [`nuget/v3/flatcontainer/${enc(id)}/${enc(v)}/${enc(id)}.${enc(v)}.nupkg`];
    }
    case 'pypi':
      return (e.files ?? []).map((f) => `files/${enc(canonicalName)}/${enc(f)}`);
  }
}

const MAIN_FILE: Record<Ecosystem, (key: string, e: LockEntry) => boolean> = {
  npm: (k) => k.endsWith('.tgz'),
  cargo: (k) => k.endsWith('.crate'),
  go: (k, e) => (e.files?.includes('go.mod') ? k.endsWith('.mod') : k.endsWith('.zip')),
  rubygems: (k) => k.endsWith('.gem'),
  nuget: (k) => k.endsWith('.nupkg'),
  pypi: (k) => !k.endsWith('.metadata'),
};

/** Whether a held file (by cache key) is the one the lockfile's digests are about. */
export const isLockedFile = (e: LockEntry, cacheKey: string): boolean => MAIN_FILE[e.ecosystem](cacheKey, e);
