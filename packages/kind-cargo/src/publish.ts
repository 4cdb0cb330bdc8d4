/**
 * Publishing (local and hybrid registries): cargo's registry web API as the public crate registry speaks it.
 *
 * - `PUT api/v1/crates/new`: `cargo publish`. The body is a u32 (little-endian) length, the JSON
 *   metadata, a u32 length and the `.crate`. The `.crate` must be a gzip tar whose every entry sits
 *   below `<name>-<version>/` and whose `<name>-<version>/Cargo.toml` names the same package and
 *   version as the JSON. Its index line is made from the JSON (as the public crate registry makes it) and kept in the
 *   database; the `.crate` is stored under the key the download route serves.
 * - `DELETE api/v1/crates/<crate>/<version>/yank` and `PUT .../unyank`: `cargo yank` and `--undo`.
 * - `DELETE api/v1/crates/<crate>/<version>`: deletes a version (cargo has no command for it; curl).
 *   Its number is never published again.
 *
 * Names: `Foo_Bar`, `foo-bar` and `FOO-BAR` are one crate for publishing (the public crate registry's rule). The first
 * publish fixes the spelling; another spelling is refused with 409, so the index file (whose path keeps
 * `-` and `_`) and cargo's name matching stay unambiguous.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { parse as parseToml } from 'smol-toml';
import {
  errors,
  findInTar,
  isArchiveError,
  readCapped,
  reply,
  tarEntryNames,
  type KindRoute,
  type RequestContext,
} from '@hub/contract';
import { canonicalName, foldName, isCrateName, isCrateVersion } from './names.js';

/** What the `.crate`'s tar may hold: the public crate registry's unpacked limit is 512 MiB; entries are bounded too. */
const CRATE_LIMITS = { maxBytes: 512 * 1024 * 1024, maxEntries: 100_000, maxEntryBytes: 1024 * 1024 };
/** The JSON metadata: the public crate registry accepts a few MB of README inside it at most. */
const MAX_JSON_BYTES = 10 * 1024 * 1024;
const MAX_REQ_CHARS = 512;

/** What `.../publish` keeps per package: the spelling the first publish used. */
interface PackageDoc {
  crate: string;
}

/** One dependency of an index line (cargo's `RegistryDependency`). */
export interface IndexDependency {
  name: string;
  req: string;
  features: string[];
  optional: boolean;
  default_features: boolean;
  target: string | null;
  kind: 'normal' | 'dev' | 'build';
  registry?: string;
  package?: string;
}

/** The index line of a published version, as kept in the database (`yanked` is added when served). */
export interface PublishedLine {
  name: string;
  vers: string;
  deps: IndexDependency[];
  cksum: string;
  features: Record<string, string[]>;
  links: string | null;
  features2?: Record<string, string[]>;
  v?: 2;
  rust_version?: string;
}

type Json = Record<string, unknown>;
const bad = (message: string) => errors.badRequest(message);
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const printable = (s: string) => JSON.stringify(s.slice(0, 100));
const optString = (v: unknown, what: string): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw bad(`${what} must be a string`);
  return v;
};
const stringList = (v: unknown, what: string): string[] => {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw bad(`${what} must be a list of strings`);
  return v as string[];
};

/** Splits cargo's upload: u32 LE length + JSON, u32 LE length + .crate, nothing after. */
export function splitUpload(body: Buffer): { meta: Json; crate: Buffer } {
  const cut = () =>
    bad('the upload is not a cargo publish body (a u32 length and the JSON metadata, a u32 length and the .crate)');
  if (body.length < 4) throw cut();
  const jsonLength = body.readUInt32LE(0);
  if (jsonLength > MAX_JSON_BYTES) throw bad(`the publish metadata may be at most ${MAX_JSON_BYTES} bytes`);
  if (body.length < 8 + jsonLength) throw cut();
  const crateLength = body.readUInt32LE(4 + jsonLength);
  if (body.length !== 8 + jsonLength + crateLength) throw cut();
  let meta: unknown;
  try {
    meta = JSON.parse(body.subarray(4, 4 + jsonLength).toString('utf8'));
  } catch {
    throw bad('the publish metadata is not JSON');
  }
  if (!isObject(meta)) throw bad('the publish metadata is not a JSON object');
  return { meta, crate: body.subarray(8 + jsonLength) };
}

function dependency(d: unknown, i: number): IndexDependency {
  if (!isObject(d)) throw bad(`deps[${i}] is not an object`);
  const name = d.name;
  if (typeof name !== 'string' || !isCrateName(name))
    throw bad(`deps[${i}].name ${typeof name === 'string' ? printable(name) : ''} is not a valid crate name`);
  const req = d.version_req;
  if (typeof req !== 'string' || !req || req.length > MAX_REQ_CHARS || /[\u0000-\u001f]/.test(req))
    throw bad(`deps[${i}] (${name}) has no valid version_req`);
  const kind = d.kind ?? 'normal';
  if (kind !== 'normal' && kind !== 'dev' && kind !== 'build') throw bad(`deps[${i}] (${name}) has an unknown kind`);
  const renamed = optString(d.explicit_name_in_toml, `deps[${i}].explicit_name_in_toml`);
  if (renamed !== null && !isCrateName(renamed))
    throw bad(`deps[${i}].explicit_name_in_toml ${printable(renamed)} is not a valid crate name`);
  const registry = optString(d.registry, `deps[${i}].registry`);
  const out: IndexDependency = {
    // As the public crate registry writes it: the name the dependent uses, and `package` for the crate it really is.
    name: renamed ?? name,
    req,
    features: stringList(d.features, `deps[${i}].features`),
    optional: d.optional === true,
    default_features: d.default_features !== false,
    target: optString(d.target, `deps[${i}].target`),
    kind,
  };
  if (registry !== null) out.registry = registry;
  if (renamed !== null) out.package = name;
  return out;
}

/**
 * The index line for the JSON metadata of `cargo publish`, made as the public crate registry makes it: features that use
 * the `dep:` or `?/` syntax go to `features2` with `"v": 2`, so older cargo skips what it cannot read.
 */
export function indexLine(meta: Json, cksum: string): PublishedLine {
  const { name, vers } = meta;
  if (typeof name !== 'string' || !isCrateName(name))
    throw bad(`${typeof name === 'string' ? printable(name) : 'the name'} is not a valid crate name`);
  if (typeof vers !== 'string' || !isCrateVersion(vers))
    throw bad(`${typeof vers === 'string' ? printable(vers) : 'the version'} is not a valid crate version`);
  if (meta.deps !== undefined && !Array.isArray(meta.deps)) throw bad('deps must be a list');
  const deps = ((meta.deps as unknown[] | undefined) ?? []).map(dependency);
  if (meta.features !== undefined && meta.features !== null && !isObject(meta.features))
    throw bad('features must be an object');
  const features: Record<string, string[]> = {};
  const features2: Record<string, string[]> = {};
  for (const [feature, enables] of Object.entries((meta.features as Json | null | undefined) ?? {})) {
    const list = stringList(enables, `features.${feature}`);
    (list.some((f) => f.startsWith('dep:') || f.includes('?/')) ? features2 : features)[feature] = list;
  }
  const line: PublishedLine = { name, vers, deps, cksum, features, links: optString(meta.links, 'links') };
  if (Object.keys(features2).length) Object.assign(line, { features2, v: 2 });
  const rustVersion = optString(meta.rust_version, 'rust_version');
  if (rustVersion !== null) line.rust_version = rustVersion;
  return line;
}

/**
 * Why the `.crate` is not the package the metadata names, or null: not a gzip tar, an entry outside
 * `<name>-<version>/`, no `Cargo.toml` there, or a manifest naming another package or version.
 */
export async function crateProblem(crate: Buffer, name: string, vers: string): Promise<string | null> {
  if (crate[0] !== 0x1f || crate[1] !== 0x8b) return 'the .crate is not gzip-compressed';
  const prefix = `${name}-${vers}/`;
  try {
    const names = await tarEntryNames(Readable.from([crate]), CRATE_LIMITS);
    const outside = names.find((n) => !n.startsWith(prefix) || n.split('/').some((p) => p === '..' || p === '.'));
    if (outside !== undefined) return `the .crate holds ${printable(outside)}, outside ${prefix}`;
    const manifest = await findInTar(Readable.from([crate]), (n) => n === `${prefix}Cargo.toml`, CRATE_LIMITS);
    if (!manifest) return `the .crate has no ${prefix}Cargo.toml`;
    let pkg: unknown;
    try {
      pkg = (parseToml(manifest.data.toString('utf8')) as Json).package;
    } catch {
      return `${prefix}Cargo.toml is not valid TOML`;
    }
    if (!isObject(pkg)) return `${prefix}Cargo.toml has no [package]`;
    if (pkg.name !== name)
      return `${prefix}Cargo.toml names package ${printable(String(pkg.name))}, the metadata ${printable(name)}`;
    if (pkg.version !== vers)
      return `${prefix}Cargo.toml has version ${printable(String(pkg.version))}, the metadata ${printable(vers)}`;
    return null;
  } catch (e) {
    if (isArchiveError(e)) return `the .crate is not a valid tar.gz: ${e.message}`;
    throw e;
  }
}

/** The key a version's `.crate` is stored and served under (the download route's). */
export const crateKey = (name: string, version: string): string => {
  const c = canonicalName(name);
  return `crates/${c}/${c}-${version}.crate`;
};

/** The spelling `name` was first published with here (any case, `-` or `_`), or null. */
export async function publishedSpelling(rc: RequestContext, name: string): Promise<string | null> {
  const doc = await rc.local.packageMeta(foldName(name));
  return isObject(doc) && typeof doc.crate === 'string' ? doc.crate : null;
}

/**
 * True when a hybrid registry must not ask its upstream about `name`: it was published here and is
 * `local_only`, or another spelling of it (`-`/`_`) was published here (that spelling's folded name keeps the
 * spelling document and is `local_only`). An operator who turns `local_only` off for the published spelling
 * opens that spelling only; the other spellings stay closed.
 */
export async function ownedHere(rc: RequestContext, name: string): Promise<boolean> {
  const [lower, fold] = [canonicalName(name), foldName(name)];
  if (lower === fold) return rc.local.ownsName(lower);
  const first = await publishedSpelling(rc, name);
  if (first !== null && canonicalName(first) === lower) return rc.local.ownsName(lower);
  return (await rc.local.ownsName(lower)) || (await rc.local.ownsName(fold));
}

const publishRoute: KindRoute = {
  id: 'publish',
  methods: ['PUT'],
  permission: 'source:write',
  match: (s) => (s.length === 4 && s[0] === 'api' && s[1] === 'v1' && s[2] === 'crates' && s[3] === 'new' ? {} : null),
  async handle(rc) {
    // rc.body() is capped at max_publish_bytes (413); the .crate is its largest part.
    const { meta, crate } = splitUpload(await readCapped(rc.body(), Number.MAX_SAFE_INTEGER));
    const cksum = createHash('sha256').update(crate).digest('hex');
    const line = indexLine(meta, cksum);
    const { name, vers } = line;
    const coordinate = { name: canonicalName(name), version: vers };
    // The name comes from the body: package-scoped policies and blocks are decided for it now.
    await rc.authorize(coordinate);
    const first = await publishedSpelling(rc, name);
    if (first !== null && first !== name)
      throw errors.conflict(
        `crate ${name} is published here as ${first}: cargo treats the two names as one crate; publish it as ${first}`,
      );
    const problem = await crateProblem(crate, name, vers);
    if (problem) throw bad(problem);
    // The .crate and its version in one transaction: 409 for a version published or deleted before, 413/507
    // for size and quota; a failure leaves neither.
    await rc.local.putFile({
      key: crateKey(name, vers),
      coordinate,
      contentType: 'application/gzip',
      format: 'gzip',
      body: crate,
      digests: [{ algorithm: 'sha256', hex: cksum }],
      addsVersion: { meta: line },
    });
    if (first === null) await rc.local.setPackageMeta(foldName(name), { crate: name } satisfies PackageDoc);
    rc.recordAction('publish', coordinate);
    return reply.json({ warnings: { invalid_categories: [], invalid_badges: [], other: [] } });
  },
};

/** `api/v1/crates/<crate>/<version>` + `rest`: the crate and version, validated (400 when malformed). */
function versionPath(s: readonly string[], rest: readonly string[]) {
  if (
    s.length !== 5 + rest.length ||
    s[0] !== 'api' ||
    s[1] !== 'v1' ||
    s[2] !== 'crates' ||
    rest.some((r, i) => s[5 + i] !== r)
  )
    return null;
  const [crate, version] = [s[3]!, s[4]!];
  if (!isCrateName(crate)) throw bad(`${printable(crate)} is not a valid crate name`);
  if (!isCrateVersion(version)) throw bad(`${printable(version)} is not a valid crate version`);
  return { coordinate: { name: canonicalName(crate), version } };
}

const notPublished = (name: string, version: string) =>
  errors.notFound(`${name} ${version} was not published to this registry`);

function yankRoute(yanked: boolean): KindRoute {
  return {
    id: yanked ? 'yank' : 'unyank',
    methods: [yanked ? 'DELETE' : 'PUT'],
    permission: 'source:write',
    match: (s) => versionPath(s, [yanked ? 'yank' : 'unyank']),
    async handle(rc, m) {
      const { name, version } = m.coordinate as { name: string; version: string };
      if (!(await rc.local.updateVersion(name, version, { yanked }))) throw notPublished(name, version);
      rc.recordAction(yanked ? 'yank' : 'unyank', { name, version });
      return reply.json({ ok: true });
    },
  };
}

const deleteRoute: KindRoute = {
  id: 'delete',
  methods: ['DELETE'],
  permission: 'source:write',
  match: (s) => versionPath(s, []),
  async handle(rc, m) {
    const { name, version } = m.coordinate as { name: string; version: string };
    if (!(await rc.local.deleteVersion(name, version))) throw notPublished(name, version);
    rc.recordAction('unpublish', { name, version });
    return reply.json({ ok: true });
  },
};

export const publishRoutes: readonly KindRoute[] = [publishRoute, yankRoute(true), yankRoute(false), deleteRoute];
