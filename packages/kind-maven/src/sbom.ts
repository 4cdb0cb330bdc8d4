import { readCapped, type SbomDependency, type SbomExtractor, type SbomLimits } from '@hub/contract';
import { walk } from './xml.js';

/**
 * Maven scopes as SBOM scopes: compile and runtime are `runtime`; test is `dev`; provided is `peer`
 * (the container supplies it at run time, as an npm host supplies a peer); system is `build` (a local
 * file named at build time). `<optional>true</optional>` makes any of them `optional`.
 */
const SCOPES: Record<string, SbomDependency['scope']> = {
  '': 'runtime',
  compile: 'runtime',
  runtime: 'runtime',
  test: 'dev',
  provided: 'peer',
  system: 'build',
};

const limitError = (message: string) =>
  Object.assign(new Error(message), { name: 'ArchiveError', code: 'ARCHIVE_LIMIT' });

/**
 * The direct dependencies a POM declares (`project/dependencies`, not dependencyManagement, plugins or
 * profiles). `${...}` references are filled in from the POM's own properties and project/parent
 * coordinates; an absent version (managed by a parent POM hub does not read) is an empty range.
 */
export function pomDependencies(xml: string, maxEntries = Infinity): SbomDependency[] {
  const props = new Map<string, string>();
  const deps: Array<Record<string, string>> = [];
  let current: Record<string, string> = {};
  walk(
    xml,
    (path, text) => {
      const prop = /^project\/properties\/([^/]+)$/.exec(path);
      if (prop) props.set(prop[1]!, text);
      const own = /^project\/(groupId|artifactId|version)$/.exec(path);
      if (own) props.set(`project.${own[1]}`, text);
      const parent = /^project\/parent\/(groupId|version)$/.exec(path);
      if (parent) props.set(`project.parent.${parent[1]}`, text);
      const field = /^project\/dependencies\/dependency\/(groupId|artifactId|version|scope|optional)$/.exec(path);
      if (field) current[field[1]!] = text;
    },
    (path) => {
      if (path !== 'project/dependencies/dependency') return;
      if (deps.length >= maxEntries) throw limitError('the POM declares more dependencies than the SBOM cap');
      deps.push(current);
      current = {};
    },
  );
  // A module without its own groupId/version inherits the parent's.
  for (const k of ['groupId', 'version'])
    if (!props.has(`project.${k}`) && props.has(`project.parent.${k}`))
      props.set(`project.${k}`, props.get(`project.parent.${k}`)!);
  const fill = (s: string) =>
    s.replace(
      /\$\{([\w.-]+)\}/g,
      (all, key: string) =>
        props.get(key) ??
        props.get(key.replace(/^pom\./, 'project.')) ??
        (key === 'version' || key === 'groupId' ? props.get(`project.${key}`) : undefined) ??
        all,
    );
  return deps
    .filter((d) => d.groupId && d.artifactId)
    .map((d) => {
      const scope = d.optional === 'true' ? 'optional' : (SCOPES[(d.scope ?? '').toLowerCase()] ?? 'runtime');
      return { name: `${fill(d.groupId!)}:${fill(d.artifactId!)}`, range: fill(d.version ?? ''), scope };
    });
}

/** Dependencies from a cached `.pom`, read within the size and entry caps; DOCTYPEs are refused, never expanded. */
export const sbom: SbomExtractor = {
  appliesTo: (key) => key.endsWith('.pom'),
  async extract(body, limits: SbomLimits) {
    return pomDependencies(
      (await readCapped(body, limits.maxBytes, () => limitError('the POM exceeds the SBOM size cap'))).toString('utf8'),
      limits.maxEntries,
    );
  },
};
