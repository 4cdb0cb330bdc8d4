import { errors, type Coordinate } from '@hub/contract';

/**
 * The Maven repository layout: `<group, dots as slashes>/<artifactId>/<version>/<artifactId>-<version>[-<classifier>].<ext>`,
 * `<group>/<artifactId>/maven-metadata.xml`, and for SNAPSHOTs `<group>/<artifactId>/<version>/maven-metadata.xml`.
 * Names are checked strictly so a path can only ever name a place inside the repository.
 */

/** A group's dots are path separators, so one of its segments has no dot (and so no `.`/`..`). */
const GROUP_SEGMENT = /^[A-Za-z0-9_-]{1,100}$/;
const ARTIFACT = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$/;
const VERSION = /^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,199}$/;
const FILE = /^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,299}$/;
const MAX_GROUP_SEGMENTS = 20;

export const CHECKSUMS = ['sha1', 'md5', 'sha256', 'sha512'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUMS)[number];
const isChecksum = (ext: string): ext is ChecksumAlgorithm => (CHECKSUMS as readonly string[]).includes(ext);

export const isGroup = (g: string): boolean => {
  const parts = g.split('.');
  return parts.length <= MAX_GROUP_SEGMENTS && parts.every((p) => GROUP_SEGMENT.test(p));
};
export const isArtifactId = (a: string): boolean => ARTIFACT.test(a) && !a.includes('..');
export const isVersion = (v: string): boolean => VERSION.test(v) && !v.includes('..');
export const isSnapshot = (v: string): boolean => v.endsWith('-SNAPSHOT');

/** `group:artifact` (docs/coordinates.md). */
export const coordinateName = (group: string, artifact: string): string => `${group}:${artifact}`;

/** Parses `group:artifact`; null when malformed. */
export function splitName(name: string): { group: string; artifact: string } | null {
  const [group, artifact, ...rest] = name.split(':');
  if (rest.length || !group || !artifact || !isGroup(group) || !isArtifactId(artifact)) return null;
  return { group, artifact };
}

/** The repository path of `group:artifact`'s folder, e.g. `org/example/demo`. */
export const artifactDir = (group: string, artifact: string): string => `${group.split('.').join('/')}/${artifact}`;

/** What a request below `maven2/` names. `path` is the repository path (already safe to append to the upstream). */
export type MavenRequest =
  | { type: 'metadata'; path: string; coordinate: Coordinate; checksum?: ChecksumAlgorithm; signature: boolean }
  | {
      type: 'file';
      path: string;
      coordinate: Coordinate;
      /** `checksum`/`signature`: a `.sha1`… or `.asc` of another file in the folder. */
      role: 'primary' | 'checksum' | 'signature';
      checksum?: ChecksumAlgorithm;
      /** The extension of the primary file (`jar`, `pom`, …), without any checksum or signature suffix. */
      ext: string;
      /** A non-unique SNAPSHOT file (`a-1.0-SNAPSHOT.jar`) changes in place; timestamped ones do not. */
      mutable: boolean;
    };

function bad(what: string, value: string): never {
  throw errors.badRequest(`"${value.slice(0, 100)}" is not a valid Maven ${what}`);
}

function checkedGroup(segments: readonly string[]): string {
  if (segments.length === 0 || segments.length > MAX_GROUP_SEGMENTS)
    throw errors.badRequest('a Maven group path needs 1 to 20 segments');
  for (const s of segments) if (!GROUP_SEGMENT.test(s)) bad('group path segment', s);
  return segments.join('.');
}

function checkedArtifact(a: string): string {
  if (!isArtifactId(a)) bad('artifactId', a);
  return a;
}

function checkedVersion(v: string): string {
  if (!isVersion(v)) bad('version', v);
  return v;
}

/** What follows `<artifactId>-` in a file name of version `version`: null when the file is not of that version. */
function afterVersion(rest: string, version: string): { rest: string; mutable: boolean } | null {
  if (!isSnapshot(version))
    return rest.startsWith(version) ? { rest: rest.slice(version.length), mutable: false } : null;
  const base = version.slice(0, -'SNAPSHOT'.length);
  if (!rest.startsWith(base)) return null;
  const tail = rest.slice(base.length);
  if (tail.startsWith('SNAPSHOT')) return { rest: tail.slice('SNAPSHOT'.length), mutable: true };
  const stamp = /^\d{8}\.\d{6}-\d{1,9}/.exec(tail);
  return stamp ? { rest: tail.slice(stamp[0].length), mutable: false } : null;
}

/**
 * Parses the segments below `/proxy/<name>/`: null when they are not a `maven2/` path (a 404), a 400
 * when a name in them is malformed, a 404 when the file does not belong to the folder it is in.
 */
export function parseRequest(segments: readonly string[]): MavenRequest | null {
  if (segments[0] !== 'maven2' || segments.length < 4) return null;
  const s = segments.slice(1);
  const file = s.at(-1)!;
  if (file === '') return null; // a folder: hub serves no directory listings
  if (!FILE.test(file)) bad('file name', file);
  const meta = /^maven-metadata\.xml(?:\.(sha1|md5|sha256|sha512|asc))?$/.exec(file);
  if (meta) {
    const suffix = meta[1];
    const checksum = suffix && isChecksum(suffix) ? suffix : undefined;
    const snapshotDir = s.length >= 4 && isSnapshot(s.at(-2)!);
    const version = snapshotDir ? checkedVersion(s.at(-2)!) : undefined;
    const artifact = checkedArtifact(s.at(snapshotDir ? -3 : -2)!);
    const group = checkedGroup(s.slice(0, snapshotDir ? -3 : -2));
    const dir = artifactDir(group, artifact);
    return {
      type: 'metadata',
      path: version ? `${dir}/${version}/maven-metadata.xml` : `${dir}/maven-metadata.xml`,
      coordinate: version
        ? { name: coordinateName(group, artifact), version }
        : { name: coordinateName(group, artifact) },
      checksum,
      signature: suffix === 'asc',
    };
  }
  if (s.length < 4) return null;
  const version = checkedVersion(s.at(-2)!);
  const artifact = checkedArtifact(s.at(-3)!);
  const group = checkedGroup(s.slice(0, -3));
  const notHere = () => errors.notFound(`${file.slice(0, 100)} is not a file of ${group}:${artifact}:${version}`);
  if (!file.startsWith(`${artifact}-`)) throw notHere();
  const v = afterVersion(file.slice(artifact.length + 1), version);
  // After the version: an optional `-<classifier>`, then `.<extension>`.
  if (!v || !/^(?:-[A-Za-z0-9_.+-]+)?\.[A-Za-z0-9]/.test(v.rest)) throw notHere();
  const exts = file.split('.');
  let last = exts.pop()!;
  let role: 'primary' | 'checksum' | 'signature' = 'primary';
  let checksum: ChecksumAlgorithm | undefined;
  if (isChecksum(last)) {
    role = 'checksum';
    checksum = last;
    last = exts.pop()!;
  }
  if (last === 'asc') {
    role = role === 'primary' ? 'signature' : role;
    last = exts.pop()!;
  }
  if (exts.length === 0 || !/^[A-Za-z0-9]+$/.test(last)) throw notHere();
  return {
    type: 'file',
    path: `${artifactDir(group, artifact)}/${version}/${file}`,
    coordinate: { name: coordinateName(group, artifact), version },
    role,
    checksum,
    ext: last.toLowerCase(),
    mutable: v.mutable,
  };
}
