/**
 * Publishing to local and hybrid registries through the legacy upload API, as twine speaks it: a
 * multipart/form-data POST to the repository URL (`<base>/legacy/`, or the base itself) with
 * `:action=file_upload`, `name`, `version`, the file as `content` and, optionally, `sha256_digest` and
 * `requires_python`. One version has many files (wheels and an sdist), so the version's record keeps the
 * list (`LocalVersion.meta`); a wheel's METADATA is also stored as its PEP 658 `.metadata` file.
 */
import fs from 'node:fs';
import {
  errors,
  findInZip,
  isArchiveError,
  readForm,
  type FormFile,
  type KindRoute,
  type LocalVersion,
  type Reply,
  type RequestContext,
} from '@hub/contract';
import { isProjectName, normalizeName, parseDistFile } from './names.js';
import { canonicalVersion } from './pep440.js';
import type { ProjectFile } from './project-page.js';

/** What a published file of a version keeps for the project page. */
export interface PublishedFile {
  filename: string;
  sha256: string;
  size: number;
  requiresPython?: string;
  /** sha256 of the wheel's METADATA, stored as `<file>.metadata`. */
  metadataSha256?: string;
  uploadedAt: string;
}

export interface PublishedMeta {
  files: PublishedFile[];
}

export const fileKey = (project: string, filename: string): string => `files/${project}/${filename}`;

/**
 * twine's form: the `content` file, perhaps a `gpg_signature` file, and a few dozen metadata fields, of which
 * `description` (the README) may be large.
 */
const FORM_LIMITS = {
  maxFiles: 2,
  maxFields: 200,
  maxFieldBytes: 4 * 1024 * 1024,
  maxFieldBytesTotal: 8 * 1024 * 1024,
};

const field = (fields: Map<string, string[]>, name: string): string | undefined => fields.get(name)?.[0]?.trim();

/** The top-level `<dist>.dist-info/METADATA` of a wheel; 400 when the wheel is not a readable zip or has none. */
async function wheelMetadata(wheel: string, size: number): Promise<Buffer> {
  try {
    const found = await findInZip(fs.createReadStream(wheel), (n) => /^[^/]+\.dist-info\/METADATA$/.test(n), {
      maxBytes: size + 1,
      maxEntries: 100_000,
    });
    if (!found) throw errors.badRequest('the wheel has no <name>.dist-info/METADATA');
    return found.data;
  } catch (e) {
    if (isArchiveError(e)) throw errors.badRequest(`the wheel is not a valid zip: ${(e as Error).message}`);
    throw e;
  }
}

/** POST `legacy/` (or the registry base): one file of one version. */
export const uploadRoute: KindRoute = {
  id: 'upload',
  methods: ['POST'],
  permission: 'source:write',
  match: (s) =>
    s.length === 0 ||
    (s.length === 1 && s[0] === '') ||
    (s[0] === 'legacy' && (s.length === 1 || (s.length === 2 && s[1] === '')))
      ? {}
      : null,
  async handle(rc) {
    // rc.body() answers 413 past max_publish_bytes: the file part has no cap of its own.
    const form = await readForm(rc.body(), rc.headers['content-type'], {
      expected: 'an upload is a multipart/form-data POST (as twine sends it)',
      maxFileBytes: Number.MAX_SAFE_INTEGER,
      ...FORM_LIMITS,
    });
    try {
      return await upload(
        rc,
        form.fields,
        form.files.find((f) => f.field === 'content'),
      );
    } finally {
      await form.cleanup();
    }
  },
};

async function upload(rc: RequestContext, fields: Map<string, string[]>, file: FormFile | undefined): Promise<Reply> {
  if (field(fields, ':action') !== 'file_upload') throw errors.badRequest('only :action=file_upload is supported');
  const rawName = field(fields, 'name') ?? '';
  if (!isProjectName(rawName)) throw errors.badRequest(`"${rawName.slice(0, 100)}" is not a valid project name`);
  if (!file) throw errors.badRequest('the upload has no file part named "content"');
  const project = normalizeName(rawName);
  const dist = parseDistFile(project, file.filename);
  if (!dist)
    throw errors.badRequest(`"${file.filename.slice(0, 200)}" is not a wheel or sdist file name of ${project}`);
  const version = field(fields, 'version');
  if (version && canonicalVersion(version) !== canonicalVersion(dist.version))
    throw errors.badRequest(`the file is version ${dist.version}, the form says ${version.slice(0, 100)}`);
  const coordinate = { name: project, version: dist.version };
  await rc.authorize(coordinate);

  const sha256 = field(fields, 'sha256_digest')?.toLowerCase();
  if (sha256 !== undefined && !/^[0-9a-f]{64}$/.test(sha256))
    throw errors.badRequest('sha256_digest is not 64 hex digits');
  const metadata = dist.kind === 'wheel' ? await wheelMetadata(file.path, file.size) : null;
  const stored = await rc.local.putFile({
    key: fileKey(project, file.filename),
    coordinate,
    contentType: 'application/octet-stream',
    body: fs.createReadStream(file.path),
    ...(sha256 ? { digests: [{ algorithm: 'sha256' as const, hex: sha256 }] } : {}),
    ...(dist.format ? { format: dist.format } : {}),
  });
  const meta = metadata
    ? await rc.local.putFile({
        key: `${fileKey(project, file.filename)}.metadata`,
        coordinate,
        contentType: 'text/plain; charset=utf-8',
        body: metadata,
      })
    : null;
  const requiresPython = field(fields, 'requires_python');
  const entry: PublishedFile = {
    filename: file.filename,
    sha256: stored.sha256,
    size: stored.size,
    ...(requiresPython ? { requiresPython: requiresPython.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 200) } : {}),
    ...(meta ? { metadataSha256: meta.sha256 } : {}),
    uploadedAt: new Date().toISOString(),
  };
  // A file of a version already published, in any spelling (`1.0` and `1.0.0`), joins that version.
  const existing = (await rc.local.versions(project)).find(
    (v) => canonicalVersion(v.version) === canonicalVersion(dist.version),
  );
  if (existing)
    await rc.local.updateVersion(project, existing.version, {
      meta: { files: [...filesOf(existing), entry] } satisfies PublishedMeta,
    });
  else await rc.local.addVersion(project, dist.version, { files: [entry] } satisfies PublishedMeta);
  rc.recordAction(existing ? 'upload' : 'publish', coordinate, file.filename);
  return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'OK\n' };
}

const filesOf = (v: LocalVersion): PublishedFile[] =>
  ((v.meta as PublishedMeta | null)?.files ?? []).filter((f) => typeof f?.filename === 'string');

/** The files published here for `project`, as project page entries (yanked versions marked). */
export async function localFiles(rc: RequestContext, project: string): Promise<ProjectFile[]> {
  if (rc.registry.mode === 'proxy') return [];
  const out: ProjectFile[] = [];
  for (const v of await rc.local.versions(project))
    for (const f of filesOf(v)) {
      const dist = parseDistFile(project, f.filename);
      if (!dist) continue;
      out.push({
        filename: f.filename,
        version: dist.version,
        kind: dist.kind,
        url: '',
        hashes: { sha256: f.sha256 },
        ...(f.requiresPython ? { requiresPython: f.requiresPython } : {}),
        yanked: v.yanked ? '' : null,
        metadata: f.metadataSha256 ? { hashes: { sha256: f.metadataSha256 } } : null,
        uploadTime: new Date(f.uploadedAt),
        size: f.size,
      });
    }
  return out;
}
