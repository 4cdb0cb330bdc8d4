/**
 * Publishing (issue 13): a module version is three PUTs, `<module>/@v/<version>.info`, `.mod` and `.zip`, in any
 * order. Each file is checked against the path it is PUT at before anything is stored; the version is recorded
 * (listed, `@latest`, audit row and `package_published`) when the third of its files arrives.
 */
import { Readable } from 'node:stream';
import {
  errors,
  findInZip,
  HubError,
  isArchiveError,
  isHubError,
  readCapped,
  reply,
  type KindRoute,
  type RequestContext,
} from '@hub/contract';
import { escapePath, isGoVersion, modulePath, unescapeElement } from './module-path.js';
import type { GoConfig } from './go-config.js';

type Rc = RequestContext<GoConfig>;
export type VersionFileExt = 'info' | 'mod' | 'zip';

export const EXTS: readonly VersionFileExt[] = ['info', 'mod', 'zip'];
/** The cache key of a version file: the same key the download route serves it under. */
export const versionFileKey = (module: string, version: string, ext: VersionFileExt) =>
  `${module}/@v/${escapePath(version)}.${ext}`;
export const CONTENT_TYPES: Record<VersionFileExt, string> = {
  info: 'application/json',
  mod: 'text/plain; charset=utf-8',
  zip: 'application/zip',
};

/** go's own caps (golang.org/x/mod/zip MaxGoMod); an .info is a line of JSON. */
const MAX_MOD_BYTES = 16 << 20;
const MAX_INFO_BYTES = 64 << 10;
const MAX_ZIP_ENTRIES = 1_000_000;

const tooLarge = (what: string, max: number) => () => errors.payloadTooLarge(`a ${what} may be at most ${max} bytes`);

/** The path of the `module` directive of a go.mod (quoted or not), or null when it has none. */
export function moduleDirective(text: string): string | null {
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    const m = /^module\s+(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`|(\S+))$/.exec(line);
    if (m) return m[1] !== undefined ? (JSON.parse(`"${m[1]}"`) as string) : (m[2] ?? m[3]!);
  }
  return null;
}

function checkInfo(body: Buffer, version: string): void {
  let info: { Version?: unknown; Time?: unknown };
  try {
    info = JSON.parse(body.toString('utf8')) as typeof info;
  } catch {
    throw errors.badRequest('the .info file is not JSON');
  }
  if (typeof info !== 'object' || info === null) throw errors.badRequest('the .info file is not a JSON object');
  if (info.Version !== version)
    throw errors.badRequest(
      `the .info file says Version ${JSON.stringify(info.Version)}, but it was PUT for ${version}`,
    );
  if (info.Time !== undefined && (typeof info.Time !== 'string' || Number.isNaN(Date.parse(info.Time))))
    throw errors.badRequest("the .info file's Time is not an RFC 3339 time");
}

function checkMod(body: Buffer, module: string): void {
  const declared = moduleDirective(body.toString('utf8'));
  if (declared === null) throw errors.badRequest('the .mod file has no module directive');
  if (declared !== module)
    throw errors.badRequest(
      `the .mod file declares module ${JSON.stringify(declared.slice(0, 300))}, but it was PUT for ${module}`,
    );
}

/** A file name inside the module (after its `<module>@<version>/` prefix) that stays in its place. */
const cleanInside = (rest: string): boolean =>
  rest !== '' &&
  !rest.startsWith('/') &&
  !rest.includes('\\') &&
  rest.split('/').every((p) => p !== '' && p !== '.' && p !== '..');

/** Every file entry must be `<module>@<version>/<clean path>`, as go's module zip format requires. */
async function checkZip(body: Buffer, module: string, version: string): Promise<void> {
  const prefix = `${module}@${version}/`;
  let bad: string | undefined;
  let files = 0;
  try {
    await findInZip(
      Readable.from([body]),
      (name) => {
        files++;
        if (bad === undefined && !(name.startsWith(prefix) && cleanInside(name.slice(prefix.length)))) bad = name;
        return false;
      },
      { maxBytes: body.length, maxEntries: MAX_ZIP_ENTRIES },
    );
  } catch (e) {
    if (isArchiveError(e)) throw errors.badRequest(`the .zip is not a readable zip archive: ${e.message}`);
    throw e;
  }
  if (bad !== undefined)
    throw errors.badRequest(
      `the module zip entry ${JSON.stringify(bad.slice(0, 300))} is not under ${prefix} (go's module zip format: every file is <module>@<version>/<path>)`,
    );
  if (files === 0) throw errors.badRequest('the module zip holds no files');
}

/** Splits a PUT path `<module>/@v/<version>.<info|mod|zip>`; null when it is not one. */
function parseVersionFile(s: readonly string[]): { module: string; version: string; ext: VersionFileExt } | null {
  const at = s.length - 2;
  if (at < 1 || s[at] !== '@v') return null;
  const m = /^(.+)\.(info|mod|zip)$/.exec(s[at + 1]!);
  if (!m) return null;
  const module = modulePath(s.slice(0, at));
  const version = unescapeElement(m[1]!);
  if (!module) throw errors.badRequest('malformed module path');
  if (!version || !isGoVersion(version)) throw errors.badRequest(`"${m[1]!.slice(0, 100)}" is not a module version`);
  return { module, version, ext: m[2] as VersionFileExt };
}

/** Records the version once its three files are stored; a concurrent PUT that recorded it first is not an error. */
async function recordWhenComplete(rc: Rc, module: string, version: string): Promise<boolean> {
  for (const ext of EXTS) if (!(await rc.local.file(versionFileKey(module, version, ext)))) return false;
  try {
    await rc.local.addVersion(module, version);
  } catch (e) {
    if (isHubError(e) && e.code === 'conflict' && (await rc.local.versions(module)).some((v) => v.version === version))
      return false;
    throw e;
  }
  return true;
}

/** PUT `<module>/@v/<version>.{info,mod,zip}` (local and hybrid registries). */
export const publishRoute: KindRoute<GoConfig> = {
  id: 'publish',
  methods: ['PUT'],
  permission: 'source:write',
  match(s) {
    if (s[0] === 'sumdb') return null;
    const r = parseVersionFile(s);
    return r ? { coordinate: { name: r.module, version: r.version }, params: { ext: r.ext } } : null;
  },
  async handle(rc, m) {
    const { name: module, version } = m.coordinate as { name: string; version: string };
    const ext = m.params!.ext as VersionFileExt;
    const key = versionFileKey(module, version, ext);
    if (await rc.local.file(key)) throw errors.conflict(`${key} is already published; published files never change`);
    const cap = ext === 'zip' ? Infinity : ext === 'mod' ? MAX_MOD_BYTES : MAX_INFO_BYTES;
    // rc.body() answers 413 past max_publish_bytes; the file is read whole so it can be checked before it is stored.
    const body = await readCapped(rc.body(), cap, tooLarge(`.${ext} file`, cap));
    if (ext === 'info') checkInfo(body, version);
    else if (ext === 'mod') checkMod(body, module);
    else await checkZip(body, module, version);
    const stored = await rc.local.putFile({
      key,
      coordinate: { name: module, version },
      contentType: CONTENT_TYPES[ext],
      body,
      ...(ext === 'zip' ? { format: 'zip' as const } : {}),
    });
    const recorded = await recordWhenComplete(rc, module, version);
    // One publish per version: the audit row and the `package_published` event come with the file that completes it.
    rc.recordAction(recorded ? 'publish' : 'upload', { name: module, version }, `${ext} file`);
    return reply.json(
      {
        module,
        version,
        file: `${escapePath(version)}.${ext}`,
        size: stored.size,
        sha256: stored.sha256,
        published: recorded,
      },
      201,
    );
  },
};

/**
 * DELETE `<module>/@v/<version>`: removes a published version (its three files). go has no client command for
 * this; it is for an administrator's script. The version number is tombstoned: never published again.
 */
export const deleteRoute: KindRoute<GoConfig> = {
  id: 'unpublish',
  methods: ['DELETE'],
  permission: 'source:write',
  match(s) {
    const at = s.length - 2;
    if (s[0] === 'sumdb' || at < 1 || s[at] !== '@v' || /\.(info|mod|zip)$|^list$/.test(s[at + 1]!)) return null;
    const module = modulePath(s.slice(0, at));
    const version = unescapeElement(s[at + 1]!);
    if (!module || !version || !isGoVersion(version)) throw errors.badRequest('expected DELETE <module>/@v/<version>');
    return { coordinate: { name: module, version } };
  },
  async handle(rc, m) {
    const { name: module, version } = m.coordinate as { name: string; version: string };
    if (!(await rc.local.deleteVersion(module, version)))
      throw new HubError('not_found', `${module} ${version} is not published here`);
    rc.recordAction('unpublish', { name: module, version });
    return { status: 204, headers: {}, body: null };
  },
};
