/**
 * Publishing (issue 13): `dotnet nuget push` sends a multipart/form-data PUT to the PackagePublish/2.0.0 resource
 * (`api/v2/package`) with the .nupkg as its one file part; `dotnet nuget delete` sends DELETE
 * `api/v2/package/<id>/<version>`, which unlists (as the gallery does) or deletes, by the registry's `delete_mode`.
 */
import fs from 'node:fs';
import {
  errors,
  findInZip,
  HubError,
  isArchiveError,
  isHubError,
  localName,
  readForm,
  readXml,
  XmlError,
  type FormFile,
  type KindRoute,
  type Reply,
  type RequestContext,
} from '@hub/contract';
import { checkedId, checkedVersion, isPackageId, normalizeVersion } from './names.js';
import { nuspecDependencies, nuspecText, type NuspecDependency } from './nuspec.js';
import { MAX_NUSPEC_BYTES } from './sbom.js';

export interface NugetConfig {
  /** What `dotnet nuget delete` does in a local or hybrid registry. */
  delete_mode?: 'unlist' | 'delete';
}

/** What a published version keeps for its listings (`LocalVersion.meta`). */
export interface PublishedMeta {
  /** The id and version as the .nuspec spells them. */
  id: string;
  version: string;
  nuspec: string;
  description?: string;
  authors?: string;
  dependencies: NuspecDependency[];
  /** base64 SHA-512 of the .nupkg, as registration leaves give it. */
  packageHash: string;
  size: number;
}

const MAX_ZIP_ENTRIES = 100_000;

/** The flat-container cache key of a .nupkg: the same key the download route serves it under. */
export const nupkgKey = (id: string, version: string) => `${id}/${version}/${id}.${version}.nupkg`;

/** The push endpoint, below `/proxy/<name>/`: what the service index names as PackagePublish/2.0.0. */
export const PUBLISH_PATH = 'api/v2/package';

interface Manifest {
  id: string;
  version: string;
  description?: string;
  authors?: string;
}

/** `package/metadata/{id,version,description,authors}` of a .nuspec; 400 when it is not XML or lacks id or version. */
export function readManifest(xml: string): Manifest {
  const stack: string[] = [];
  const fields: Record<string, string> = {};
  try {
    readXml(xml, {
      open(name, _a, _at, selfClosing) {
        if (!selfClosing) stack.push(localName(name));
      },
      text(text) {
        const path = stack.join('/');
        const m = /^package\/metadata\/(id|version|description|authors)$/.exec(path);
        if (m) fields[m[1]!] = (fields[m[1]!] ?? '') + text;
      },
      close(_name, _at, selfClosing) {
        if (!selfClosing) stack.pop();
      },
    });
  } catch (e) {
    if (e instanceof XmlError) throw errors.badRequest(`the .nuspec ${e.message}`);
    throw e;
  }
  const id = fields.id?.trim();
  const version = fields.version?.trim();
  if (!id) throw errors.badRequest('the .nuspec has no <id>');
  if (!version) throw errors.badRequest('the .nuspec has no <version>');
  return { id, version, description: fields.description?.trim(), authors: fields.authors?.trim() };
}

/** The root `.nuspec` of a .nupkg and its file name; 400 when the package is not a zip or has none. */
async function nuspecOf(nupkg: FormFile): Promise<{ name: string; text: string }> {
  try {
    const found = await findInZip(
      fs.createReadStream(nupkg.path),
      (n) => !n.includes('/') && n.toLowerCase().endsWith('.nuspec'),
      {
        maxBytes: nupkg.size,
        maxEntries: MAX_ZIP_ENTRIES,
        maxEntryBytes: MAX_NUSPEC_BYTES,
      },
    );
    if (!found) throw errors.badRequest('the .nupkg has no .nuspec at its root');
    return { name: found.name, text: nuspecText(found.data) };
  } catch (e) {
    if (isArchiveError(e)) throw errors.badRequest(`the .nupkg is not a readable zip archive: ${e.message}`);
    throw e;
  }
}

/** PUT api/v2/package: `dotnet nuget push`. Answers 201 Created, as the gallery does. */
export const pushRoute: KindRoute = {
  id: 'push',
  methods: ['PUT'],
  permission: 'source:write',
  match: (s) => (s.join('/') === PUBLISH_PATH ? {} : null),
  async handle(rc) {
    // rc.body() answers 413 past max_publish_bytes: the file part has no cap of its own. The package is spooled
    // to a temp file so its .nuspec is checked before it is stored.
    const form = await readForm(rc.body(), rc.headers['content-type'], {
      expected: 'a push is a multipart/form-data PUT with the .nupkg as its file part (as dotnet nuget push sends it)',
      maxFileBytes: Number.MAX_SAFE_INTEGER,
      digests: ['sha512'],
    });
    try {
      const nupkg = form.files[0];
      if (!nupkg)
        throw errors.badRequest('the multipart body has no file part (dotnet nuget push sends the .nupkg as one)');
      return await push(rc, nupkg);
    } finally {
      await form.cleanup();
    }
  },
};

async function push(rc: RequestContext, nupkg: FormFile): Promise<Reply> {
  const nuspec = await nuspecOf(nupkg);
  const manifest = readManifest(nuspec.text);
  if (!isPackageId(manifest.id))
    throw errors.badRequest(`the .nuspec's id "${manifest.id.slice(0, 100)}" is not a valid NuGet package id`);
  const version = normalizeVersion(manifest.version);
  if (!version)
    throw errors.badRequest(`the .nuspec's version "${manifest.version.slice(0, 100)}" is not a valid NuGet version`);
  const id = manifest.id.toLowerCase();
  if (nuspec.name.toLowerCase() !== `${id}.nuspec`)
    throw errors.badRequest(
      `the package's manifest is ${nuspec.name}, but its id is ${manifest.id}: it must be ${manifest.id}.nuspec`,
    );
  let dependencies: NuspecDependency[];
  try {
    dependencies = nuspecDependencies(nuspec.text);
  } catch (e) {
    throw errors.badRequest((e as Error).message);
  }
  const coordinate = { name: id, version };
  const recorded = await rc.local.versions(id);
  if (recorded.some((v) => v.version === version))
    throw errors.conflict(`${manifest.id} ${version} is already published; a version is pushed once`);
  const meta: PublishedMeta = {
    id: manifest.id,
    version: manifest.version,
    nuspec: nuspec.text,
    description: manifest.description,
    authors: manifest.authors,
    dependencies,
    packageHash: Buffer.from(nupkg.digests.sha512!, 'hex').toString('base64'),
    size: nupkg.size,
  };
  await rc.local.putFile({
    key: nupkgKey(id, version),
    coordinate,
    contentType: 'application/octet-stream',
    format: 'zip',
    body: fs.createReadStream(nupkg.path),
    addsVersion: { meta },
  });
  rc.recordAction('publish', coordinate);
  return { status: 201, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '' };
}

const versionPath = (s: readonly string[]) => {
  if (s.length !== 5 || `${s[0]}/${s[1]}/${s[2]}` !== PUBLISH_PATH) return null;
  return { coordinate: { name: checkedId(s[3]!), version: checkedVersion(s[4]!) } };
};

const notPublished = (id: string, version: string) =>
  new HubError('not_found', `${id} ${version} is not published here`);

/**
 * DELETE api/v2/package/<id>/<version>: `dotnet nuget delete`. `delete_mode = "unlist"` (the default, as the
 * gallery does): the version stays restorable but is marked unlisted; `"delete"`: the version and its file go and
 * its number is never pushed again.
 */
export const deleteRoute: KindRoute = {
  id: 'delete',
  methods: ['DELETE'],
  permission: 'source:write',
  match: versionPath,
  async handle(rc, m) {
    const { name: id, version } = m.coordinate as { name: string; version: string };
    if (((rc.registry.config as NugetConfig | undefined)?.delete_mode ?? 'unlist') === 'delete') {
      if (!(await rc.local.deleteVersion(id, version))) throw notPublished(id, version);
      rc.recordAction('unpublish', m.coordinate!);
    } else {
      if (!(await rc.local.updateVersion(id, version, { yanked: true }))) throw notPublished(id, version);
      rc.recordAction('yank', m.coordinate!, 'unlisted');
    }
    return { status: 204, headers: {}, body: null };
  },
};

/** POST api/v2/package/<id>/<version>: relists an unlisted version (the gallery's v2 relist). */
export const relistRoute: KindRoute = {
  id: 'relist',
  methods: ['POST'],
  permission: 'source:write',
  match: versionPath,
  async handle(rc, m) {
    const { name: id, version } = m.coordinate as { name: string; version: string };
    if (!(await rc.local.updateVersion(id, version, { yanked: false }))) throw notPublished(id, version);
    rc.recordAction('unyank', m.coordinate!, 'relisted');
    return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '' };
  },
};

/** Whether an error is the runtime's 404 for a name the upstream does not know. */
export const isNotFound = (e: unknown) => isHubError(e) && e.code === 'not_found';
