/**
 * Publishing with the npm client (issue 13): `npm publish`, `npm deprecate`, `npm unpublish` and
 * `npm dist-tag`, in the requests npm 11 sends. Files and versions live in `rc.local`; the packument is
 * generated from them (local-packument.ts).
 */
import fs from 'node:fs';
import semver from 'semver';
import {
  errors,
  findInTar,
  readCapped,
  reply,
  type Digest,
  type KindRoute,
  type LocalVersion,
  type RequestContext,
  type RouteMatch,
} from '@hub/contract';
import {
  builtPackument,
  liveTags,
  localState,
  revisionOf,
  tagsOf,
  upstreamTags,
  type NpmPackageMeta,
} from './local-packument.js';
import { checkedName, takeName, tarballFile, versionFromFile } from './names.js';
import { readPublishBody, type SpooledAttachment } from './publish-body.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const short = (s: unknown) => JSON.stringify(String(s).slice(0, 100));

/**
 * The most a packument PUT may be without its tarball's base64 (a manifest with its readme, or the packument
 * `npm deprecate` sends back): kept in memory, unlike the tarball, which streams to a temp file.
 */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
/** The most a dist-tag body (a JSON string) may be. */
const MAX_TAG_BODY = 4096;
/** Caps for reading `package/package.json` out of a published tarball. */
const TAR_LIMITS = { maxBytes: 1024 * 1024 * 1024, maxEntries: 100_000, maxEntryBytes: 8 * 1024 * 1024 };

/** The request body as JSON: 400 when it is not; 413 past `max_publish_bytes` (rc.body()). */
async function jsonBody(rc: RequestContext, max: number): Promise<unknown> {
  const buf = await readCapped(rc.body(), max, () =>
    errors.payloadTooLarge(`the request body may be at most ${max} bytes`),
  );
  try {
    return JSON.parse(buf.toString('utf8')) as unknown;
  } catch {
    throw errors.badRequest('the request body is not JSON');
  }
}

/** A version as npm publishes it: valid semver, written as semver writes it (no `v`, no `=`, nothing to traverse). */
function checkedVersion(v: string): string {
  if (semver.valid(v) !== v || v.length > 256)
    throw errors.badRequest(`${short(v)} is not a valid npm version (semver, e.g. 1.2.3)`);
  return v;
}

/** A dist-tag name: printable, not a version or range (npm would read it as one), nothing to escape. */
function checkedTag(tag: string): string {
  if (!/^[A-Za-z][A-Za-z0-9._-]{0,99}$/.test(tag) || semver.validRange(tag) !== null)
    throw errors.badRequest(
      `${short(tag)} is not a valid dist-tag (letters, digits, . _ -, starting with a letter, and not a version range)`,
    );
  return tag;
}

/** The digests a version's `dist` claims: the SRI `integrity` and the hex `shasum`. 400 when one is malformed. */
function claimedDigests(dist: Json): Digest[] {
  const out: Digest[] = [];
  if (dist.integrity !== undefined) {
    if (typeof dist.integrity !== 'string') throw errors.badRequest('dist.integrity must be a string');
    for (const part of dist.integrity.trim().split(/\s+/)) {
      const m = /^(sha1|sha256|sha384|sha512)-([A-Za-z0-9+/]+={0,2})(?:\?.*)?$/.exec(part);
      if (!m) throw errors.badRequest(`dist.integrity ${short(part)} is not a subresource-integrity digest`);
      if (m[1] === 'sha384') continue; // hub stores sha1, sha256 and sha512; the others still verify the bytes
      out.push({ algorithm: m[1] as Digest['algorithm'], hex: Buffer.from(m[2]!, 'base64').toString('hex') });
    }
  }
  if (dist.shasum !== undefined) {
    if (typeof dist.shasum !== 'string' || !/^[0-9a-fA-F]{40}$/.test(dist.shasum))
      throw errors.badRequest('dist.shasum must be 40 hex digits (sha1)');
    out.push({ algorithm: 'sha1', hex: dist.shasum });
  }
  return out;
}

/** The tarball's own package.json must name the package and version it is published as. */
async function checkTarballManifest(file: string, name: string, version: string): Promise<void> {
  let found: { name: string; data: Buffer } | null;
  try {
    found = await findInTar(fs.createReadStream(file), (n) => n === 'package/package.json', TAR_LIMITS);
  } catch (e) {
    throw errors.badRequest(`the tarball is not a readable .tgz: ${(e as Error).message}`);
  }
  if (!found) throw errors.badRequest('the tarball has no package/package.json');
  let pj: unknown;
  try {
    pj = JSON.parse(found.data.toString('utf8'));
  } catch {
    throw errors.badRequest("the tarball's package/package.json is not JSON");
  }
  if (!isObject(pj) || pj.name !== name)
    throw errors.badRequest(
      `the tarball's package.json names ${short(isObject(pj) ? pj.name : '')}, but it is published as ${name}`,
    );
  if (typeof pj.version !== 'string' || semver.clean(pj.version) !== version)
    throw errors.badRequest(
      `the tarball's package.json has version ${short(pj.version)}, but it is published as ${version}`,
    );
}

/** `npm publish`: one version, its manifest and its tarball (decoded from `_attachments` to a temp file by readPublishBody). */
async function publish(
  rc: RequestContext,
  name: string,
  doc: Json,
  spooled: ReadonlyMap<string, SpooledAttachment>,
): Promise<ReturnType<typeof reply.json>> {
  if (name !== name.toLowerCase()) throw errors.badRequest(`${name}: new packages must have lower-case names`);
  const versions = isObject(doc.versions) ? Object.entries(doc.versions) : [];
  if (versions.length !== 1)
    throw errors.badRequest(`a publish carries exactly one version (this one has ${versions.length})`);
  const [version, manifest] = versions[0]!;
  checkedVersion(version);
  if (!isObject(manifest)) throw errors.badRequest(`versions[${short(version)}] is not an object`);
  if (manifest.name !== name)
    throw errors.badRequest(`the manifest of ${version} names ${short(manifest.name)}, but it is published as ${name}`);
  if (manifest.version !== version)
    throw errors.badRequest(`the manifest under ${version} says version ${short(manifest.version)}`);
  const dist = isObject(manifest.dist) ? manifest.dist : {};

  const attachments = Object.entries(doc._attachments as Json);
  const file = `${name}-${version}.tgz`;
  if (attachments.length !== 1 || attachments[0]![0] !== file)
    throw errors.badRequest(`a publish attaches exactly one tarball, named ${file}`);
  const att = attachments[0]![1];
  const tarball = spooled.get(file);
  if (!isObject(att) || typeof att.data !== 'string' || !tarball)
    throw errors.badRequest(`_attachments[${short(file)}].data must be the tarball in base64`);
  if (att.length !== undefined && att.length !== tarball.size)
    throw errors.badRequest(
      `_attachments[${short(file)}].length says ${short(att.length)} bytes, the data has ${tarball.size}`,
    );

  const tags = isObject(doc['dist-tags']) ? doc['dist-tags'] : {};
  const newTags = Object.entries(tags)
    .filter(([, v]) => v === version)
    .map(([t]) => checkedTag(t));

  const state = await localState(rc, name);
  if (state?.versions.some((v) => v.version === version))
    throw errors.conflict(`${name}@${version} is already published; a published version never changes`);
  const digests = claimedDigests(dist);
  // The document's integrity and shasum against the decoded bytes, before anything else reads them.
  for (const d of digests) {
    const got = d.algorithm === 'sha512' ? tarball.sha512 : d.algorithm === 'sha1' ? tarball.sha1 : undefined;
    if (got !== undefined && got !== d.hex.toLowerCase())
      throw errors.badRequest(
        `the ${d.algorithm} in the manifest's dist (${d.hex}) does not match the tarball received (${got})`,
      );
  }
  await checkTarballManifest(tarball.file, name, version);

  const { deprecated: _, ...kept } = manifest;
  const meta = {
    ...kept,
    dist: {
      ...dist,
      tarball: undefined,
      integrity: `sha512-${Buffer.from(tarball.sha512, 'hex').toString('base64')}`,
      shasum: tarball.sha1,
    },
  };
  // Stored and verified (claimed digests, gzip structure, size, quota) with its version row, in one step.
  await rc.local.putFile({
    key: `${name}/-/${tarballFile(name, version)}`,
    coordinate: { name, version },
    contentType: 'application/octet-stream',
    body: fs.createReadStream(tarball.file),
    digests,
    format: 'gzip',
    addsVersion: { meta },
  });

  const packageMeta = ((await rc.local.packageMeta(name)) as NpmPackageMeta | null) ?? {};
  const distTags = tagsOf(packageMeta);
  for (const t of newTags) distTags[t] = version;
  // The registry always has a `latest`: the first publish sets it whatever tag it came with.
  if (!distTags.latest) distTags.latest = version;
  await rc.local.setPackageMeta(name, { ...packageMeta, 'dist-tags': distTags });
  rc.recordAction('publish', { name, version }, newTags.length ? `dist-tags: ${newTags.join(', ')}` : undefined);
  return reply.json(
    { ok: true, id: name, rev: revisionOf({ owned: true, versions: [...(state?.versions ?? [])], tags: distTags }) },
    201,
  );
}

/** Versions of what is published here that a client could see (hidden ones are never unpublished by omission). */
async function visibleVersions(
  rc: RequestContext,
  name: string,
  state: { versions: LocalVersion[]; owned: boolean; tags: Record<string, string> },
): Promise<Set<string>> {
  const { p } = await builtPackument(rc, name, 'full', state, true);
  return new Set(Object.keys(p.versions ?? {}));
}

/** Deletes versions (tombstones stay), then drops the dist-tags that pointed at them. */
async function unpublishVersions(rc: RequestContext, name: string, remove: readonly string[]): Promise<void> {
  for (const v of remove) await rc.local.deleteVersion(name, v);
  const remaining = (await rc.local.versions(name)).map((v) => v.version);
  const packageMeta = ((await rc.local.packageMeta(name)) as NpmPackageMeta | null) ?? {};
  await rc.local.setPackageMeta(name, {
    ...packageMeta,
    'dist-tags': remaining.length ? liveTags(tagsOf(packageMeta), remaining) : {},
  });
}

/**
 * A packument PUT without a tarball: `npm deprecate` (PUT /<name>) sets or clears `deprecated`, and
 * `npm unpublish <name>@<version>` (PUT /<name>/-rev/<rev>) sends the packument without that version.
 * Only deprecations and (on -rev) removals are taken; a version's manifest never changes.
 */
async function update(
  rc: RequestContext,
  name: string,
  doc: Json,
  removeMissing: boolean,
): Promise<ReturnType<typeof reply.json>> {
  const state = await localState(rc, name);
  if (!state || state.versions.length === 0)
    throw errors.notFound(`${name} has no version published to registry ${rc.registry.name}`);
  if (!isObject(doc.versions)) throw errors.badRequest('the packument has no versions object');
  const sent = doc.versions;
  const local = new Map(state.versions.map((v) => [v.version, v]));
  for (const v of Object.keys(sent))
    if (!local.has(v))
      throw errors.badRequest(`${name}@${short(v)} is not published here: a new version is published with its tarball`);

  const visible = removeMissing ? await visibleVersions(rc, name, state) : new Set<string>();
  const remove = state.versions.filter((v) => !(v.version in sent) && visible.has(v.version)).map((v) => v.version);
  const deprecations: string[] = [];
  for (const [v, m] of Object.entries(sent)) {
    const want = isObject(m) && typeof m.deprecated === 'string' && m.deprecated !== '' ? m.deprecated : null;
    if (want !== null && want.length > 1024)
      throw errors.badRequest('a deprecation message may be at most 1024 characters');
    if (want === local.get(v)!.deprecated) continue;
    await rc.local.updateVersion(name, v, { deprecated: want });
    deprecations.push(want === null ? `${v} undeprecated` : `${v}: ${want}`);
  }
  if (remove.length) {
    await unpublishVersions(rc, name, remove);
    rc.recordAction(
      'unpublish',
      { name, version: remove.length === 1 ? remove[0] : undefined },
      `versions ${remove.join(', ')}`,
    );
  } else if (deprecations.length) {
    rc.recordAction(
      'deprecate',
      { name, version: deprecations.length === 1 ? deprecations[0]!.split(/[: ]/)[0] : undefined },
      deprecations.join('; ').slice(0, 1000),
    );
  }
  return reply.json({ ok: true, id: name });
}

/** PUT /<name>: `npm publish` (with `_attachments`) or `npm deprecate`; PUT /<name>/-rev/<rev>: `npm unpublish <name>@<version>`. */
const packumentPutRoute: KindRoute = {
  id: 'publish',
  methods: ['PUT'],
  permission: 'source:write',
  match(s) {
    const t = takeName(s);
    if (!t) return null;
    if (t.rest.length === 0) return { coordinate: { name: checkedName(t.name) } };
    if (t.rest.length === 2 && t.rest[0] === '-rev')
      return { coordinate: { name: checkedName(t.name) }, params: { rev: t.rest[1]! } };
    return null;
  },
  async handle(rc, m) {
    const name = m.coordinate!.name;
    const body = await readPublishBody(rc.body(), { maxDocumentBytes: MAX_DOCUMENT_BYTES });
    try {
      const doc = body.doc;
      if (!isObject(doc)) throw errors.badRequest('the request body is not a packument (a JSON object)');
      if (doc.name !== undefined && doc.name !== name)
        throw errors.badRequest(`the packument names ${short(doc.name)}, but was sent to ${name}`);
      if (doc._id !== undefined && doc._id !== name)
        throw errors.badRequest(`the packument's _id is ${short(doc._id)}, but it was sent to ${name}`);
      if (isObject(doc._attachments) && Object.keys(doc._attachments).length > 0) {
        if (m.params?.rev !== undefined)
          throw errors.badRequest('a new version is published with PUT /<name>, not to a revision');
        return await publish(rc, name, doc, body.attachments);
      }
      return await update(rc, name, doc, m.params?.rev !== undefined);
    } finally {
      await body.cleanup();
    }
  },
};

/** DELETE /<name>/-rev/<rev>: `npm unpublish <name> --force`, and the last version's unpublish: every version goes. */
const packageDeleteRoute: KindRoute = {
  id: 'unpublish',
  methods: ['DELETE'],
  permission: 'source:write',
  match(s) {
    const t = takeName(s);
    return t && t.rest.length === 2 && t.rest[0] === '-rev' ? { coordinate: { name: checkedName(t.name) } } : null;
  },
  async handle(rc, m) {
    const name = m.coordinate!.name;
    const versions = (await rc.local.versions(name)).map((v) => v.version);
    if (versions.length === 0)
      throw errors.notFound(`${name} has no version published to registry ${rc.registry.name}`);
    await unpublishVersions(rc, name, versions);
    rc.recordAction('unpublish', { name }, `versions ${versions.join(', ')}`);
    return reply.json({ ok: true, id: name });
  },
};

/**
 * DELETE /<name>/-/<file>.tgz/-rev/<rev>: the tarball delete that ends `npm unpublish <name>@<version>`. The
 * packument PUT before it already removed the version with its file; a version still here goes now.
 */
const tarballDeleteRoute: KindRoute = {
  id: 'unpublish-tarball',
  methods: ['DELETE'],
  permission: 'source:write',
  match(s) {
    const t = takeName(s);
    if (!t || t.rest.length !== 4 || t.rest[0] !== '-' || t.rest[2] !== '-rev') return null;
    const name = checkedName(t.name);
    const version = versionFromFile(name, t.rest[1]!);
    if (!version) throw errors.notFound(`${short(t.rest[1])} is not a tarball of ${name}`);
    return { coordinate: { name, version } };
  },
  async handle(rc, m) {
    const { name, version } = m.coordinate as { name: string; version: string };
    if ((await rc.local.versions(name)).some((v) => v.version === version)) {
      await unpublishVersions(rc, name, [version]);
      rc.recordAction('unpublish', { name, version });
    } else if (!(await rc.local.tombstones(name)).includes(version))
      throw errors.notFound(`${name}@${version} is not published to registry ${rc.registry.name}`);
    return reply.json({ ok: true });
  },
};

/** `/-/package/<name>/dist-tags[/<tag>]`, the scoped name as one segment (`@scope%2fname`) or two. */
function distTagPath(s: readonly string[]): { name: string; tag?: string } | null {
  if (s[0] !== '-' || s[1] !== 'package') return null;
  const t = takeName(s.slice(2));
  if (!t || t.rest[0] !== 'dist-tags' || t.rest.length > 2) return null;
  return { name: checkedName(t.name), tag: t.rest[1] === undefined ? undefined : checkedTag(t.rest[1]) };
}

/** GET /-/package/<name>/dist-tags: `npm dist-tag ls` (and what add/rm read first). */
const distTagsGetRoute: KindRoute = {
  id: 'dist-tags',
  match(s) {
    const p = distTagPath(s);
    return p && p.tag === undefined ? { coordinate: { name: p.name } } : null;
  },
  async handle(rc, m) {
    const name = m.coordinate!.name;
    const state = await localState(rc, name);
    if (state)
      return reply.json((await builtPackument(rc, name, 'corgi', state)).p['dist-tags'] ?? {}, 200, {
        'cache-control': 'no-cache',
      });
    return reply.json(await upstreamTags(rc, name), 200, { 'cache-control': 'no-cache' });
  },
};

/** `/-/package/<name>/dist-tags/<tag>`: the package and the tag. */
function taggedPath(s: readonly string[]): RouteMatch | null {
  const p = distTagPath(s);
  return p?.tag !== undefined ? { coordinate: { name: p.name }, params: { tag: p.tag } } : null;
}

/** PUT /-/package/<name>/dist-tags/<tag> with a JSON string body: `npm dist-tag add <name>@<version> <tag>`. */
const distTagPutRoute: KindRoute = {
  id: 'dist-tag-add',
  methods: ['PUT'],
  permission: 'source:write',
  match: taggedPath,
  async handle(rc, m) {
    const name = m.coordinate!.name;
    const tag = m.params!.tag!;
    const version = await jsonBody(rc, MAX_TAG_BODY);
    if (typeof version !== 'string')
      throw errors.badRequest('the body is the version the tag points at, as a JSON string');
    const versions = await rc.local.versions(name);
    if (!versions.some((v) => v.version === version))
      throw errors.notFound(
        `${name}@${short(version)} is not published to registry ${rc.registry.name}: dist-tags point at versions published here`,
      );
    const packageMeta = ((await rc.local.packageMeta(name)) as NpmPackageMeta | null) ?? {};
    await rc.local.setPackageMeta(name, { ...packageMeta, 'dist-tags': { ...tagsOf(packageMeta), [tag]: version } });
    rc.recordAction('dist_tag', { name, version }, `add ${tag}`);
    return reply.json({ ok: true }, 201);
  },
};

/** DELETE /-/package/<name>/dist-tags/<tag>: `npm dist-tag rm <name> <tag>`; `latest` stays. */
const distTagDeleteRoute: KindRoute = {
  id: 'dist-tag-rm',
  methods: ['DELETE'],
  permission: 'source:write',
  match: taggedPath,
  async handle(rc, m) {
    const name = m.coordinate!.name;
    const tag = m.params!.tag!;
    if (tag === 'latest')
      throw errors.badRequest('the latest tag cannot be removed (point it at another version with npm dist-tag add)');
    const packageMeta = ((await rc.local.packageMeta(name)) as NpmPackageMeta | null) ?? {};
    const tags = tagsOf(packageMeta);
    if (tags[tag] === undefined)
      throw errors.notFound(`${name} has no dist-tag ${tag} in registry ${rc.registry.name}`);
    const version = tags[tag];
    delete tags[tag];
    await rc.local.setPackageMeta(name, { ...packageMeta, 'dist-tags': tags });
    rc.recordAction('dist_tag', { name, version }, `rm ${tag}`);
    return reply.json({ ok: true });
  },
};

/** Before the read routes: `/-/package/...` and the write methods never reach them. */
export const publishRoutes: readonly KindRoute[] = [
  distTagsGetRoute,
  distTagPutRoute,
  distTagDeleteRoute,
  packumentPutRoute,
  packageDeleteRoute,
  tarballDeleteRoute,
];
