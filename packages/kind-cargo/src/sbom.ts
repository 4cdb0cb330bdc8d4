import { parse } from 'smol-toml';
import { findInTar, type SbomDependency, type SbomExtractor } from '@hub/contract';
import { canonicalName } from './names.js';

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Cargo.toml's dependency tables (old underscore spellings included) and the scope each gives. */
const TABLES = [
  ['dependencies', 'runtime'],
  ['dev-dependencies', 'dev'],
  ['dev_dependencies', 'dev'],
  ['build-dependencies', 'build'],
  ['build_dependencies', 'build'],
] as const;

/** The largest Cargo.toml read; real ones are a few KiB. */
const MAX_MANIFEST_BYTES = 1024 * 1024;

function depsOf(table: Table, out: SbomDependency[]) {
  for (const [field, scope] of TABLES) {
    const deps = table[field];
    if (!isTable(deps)) continue;
    for (const [key, spec] of Object.entries(deps)) {
      // `foo = "1.0"` or `[dependencies.foo] version = "1.0", optional = true, package = "real-name"`
      const d: Table = typeof spec === 'string' ? { version: spec } : isTable(spec) ? spec : {};
      const name = typeof d.package === 'string' ? d.package : key;
      const range = typeof d.version === 'string' ? d.version : '*';
      out.push({
        name: canonicalName(name),
        range,
        scope: d.optional === true && scope !== 'dev' ? 'optional' : scope,
      });
    }
  }
}

/** Dependencies a Cargo.toml declares, platform-specific ones (`[target.<cfg>.dependencies]`) included. */
export function parseCargoToml(text: string): SbomDependency[] {
  const manifest = parse(text) as Table;
  const out: SbomDependency[] = [];
  depsOf(manifest, out);
  if (isTable(manifest.target)) for (const t of Object.values(manifest.target)) if (isTable(t)) depsOf(t, out);
  return out;
}

/** The crate's own Cargo.toml (`<name>-<version>/Cargo.toml`) inside the .crate (a tar.gz). */
export const sbom: SbomExtractor = {
  appliesTo: (key) => key.endsWith('.crate'),
  async extract(body, limits) {
    const found = await findInTar(body, (n) => /^[^/]+\/Cargo\.toml$/.test(n), {
      ...limits,
      maxEntryBytes: MAX_MANIFEST_BYTES,
    });
    if (!found) return [];
    return parseCargoToml(found.data.toString('utf8'));
  },
};
