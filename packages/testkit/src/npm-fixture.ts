/**
 * Serve an npm registry fixture folder the way an npm registry does.
 *
 * Layout below `root`:
 *   <name>.json.tmpl                 packument (full document) for an unscoped package
 *   @<scope>%2f<name>.json.tmpl      packument for a scoped package
 *   <name>/-/<name>-<ver>.tgz        tarballs
 *   @<scope>/<name>/-/<name>-<ver>.tgz
 * `{{UPSTREAM}}` in packuments is replaced with the fake server's URL.
 *
 * Routes (GET/HEAD):
 *   /<name>, /@scope%2fname, /@scope%2Fname, /@scope/name  packument
 *     Accept containing application/vnd.npm.install-v1+json: the abbreviated form
 *     (Content-Type application/vnd.npm.install-v1+json), otherwise the full
 *     document byte for byte (Content-Type application/json).
 *   /<name>/<version-or-dist-tag>                           one version's manifest
 *   /<name>/-/<file>.tgz                                    tarball
 *   /-/npm/v1/attestations/<name>@<version>                  the version's attestations document (provenance):
 *     `<root>/-/npm/v1/attestations/<name, / as %2f>@<version>.json`, else 404
 * Unknown packages and versions get 404 {"error":"Not found"}.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { fillTemplate, pathOf, sendBody, sendFile, sendJson } from './fixture-upstream.js';
import type { FixtureHandler, FixtureUpstream } from './fixture-upstream.js';

export const NPM_ABBREVIATED_TYPE = 'application/vnd.npm.install-v1+json';

const SEGMENT = /^[a-z0-9][a-z0-9._~-]*$/i;
const TARBALL = /^[a-z0-9][a-z0-9._~-]*\.tgz$/i;

/** Fields kept per version in the abbreviated ("corgi") document. */
const ABBREVIATED_VERSION_FIELDS = [
  'name',
  'version',
  'dependencies',
  'optionalDependencies',
  'devDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'bundleDependencies',
  'bin',
  'engines',
  'os',
  'cpu',
  'deprecated',
  'hasInstallScript',
  '_hasShrinkwrap',
  'dist',
] as const;

interface Packument {
  name: string;
  'dist-tags'?: Record<string, string>;
  versions?: Record<string, Record<string, unknown>>;
  time?: Record<string, string>;
  modified?: string;
  [k: string]: unknown;
}

/** Reduce a full packument to the abbreviated install document. */
export function abbreviatePackument(doc: Packument): Record<string, unknown> {
  const versions: Record<string, Record<string, unknown>> = {};
  for (const [v, manifest] of Object.entries(doc.versions ?? {})) {
    const out: Record<string, unknown> = {};
    for (const f of ABBREVIATED_VERSION_FIELDS) if (manifest[f] !== undefined) out[f] = manifest[f];
    versions[v] = out;
  }
  return {
    name: doc.name,
    modified: doc.time?.modified ?? doc.modified,
    'dist-tags': doc['dist-tags'] ?? {},
    versions,
  };
}

export function wantsAbbreviated(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return typeof accept === 'string' && accept.toLowerCase().includes(NPM_ABBREVIATED_TYPE);
}

/** Split an npm request path into package name and the rest, or null. */
export function parseNpmPath(urlPath: string): { name: string; rest: string[] } | null {
  const segments = urlPath.replace(/%2f/gi, '/').split('/').slice(1);
  let decoded: string[];
  try {
    decoded = segments.map((s) => decodeURIComponent(s));
  } catch {
    return null;
  }
  if (decoded.length === 0 || decoded[0] === '') return null;
  let name: string;
  let rest: string[];
  if (decoded[0]!.startsWith('@')) {
    const scope = decoded[0]!.slice(1);
    const pkg = decoded[1];
    if (pkg === undefined || !SEGMENT.test(scope) || !SEGMENT.test(pkg)) return null;
    name = `@${scope}/${pkg}`;
    rest = decoded.slice(2);
  } else {
    if (!SEGMENT.test(decoded[0]!)) return null;
    name = decoded[0]!;
    rest = decoded.slice(1);
  }
  if (rest.length === 1 && rest[0] === '') rest = []; // trailing slash
  return { name, rest };
}

/** File names used for a package in the fixture folder. */
export function packumentFileCandidates(root: string, name: string): string[] {
  const base = name.replace('/', '%2f');
  return [path.join(root, `${base}.json.tmpl`), path.join(root, `${base}.json`)];
}

async function readPackument(
  root: string,
  name: string,
  upstreamUrl: string,
): Promise<{ body: Buffer; mtime: Date } | null> {
  for (const file of packumentFileCandidates(root, name)) {
    try {
      const [raw, stat] = await Promise.all([fsp.readFile(file), fsp.stat(file)]);
      return { body: fillTemplate(raw, upstreamUrl), mtime: stat.mtime };
    } catch {
      // try next
    }
  }
  return null;
}

export function npmFixtureHandler(root: string): FixtureHandler {
  return async (req: IncomingMessage, res: ServerResponse, up: FixtureUpstream): Promise<boolean> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const attestations = /^\/-\/npm\/v1\/attestations\/(.+)$/.exec(pathOf(req.url));
    if (attestations) {
      let spec: string;
      try {
        spec = decodeURIComponent(attestations[1]!).replace('/', '%2f');
      } catch {
        return false;
      }
      if (!/^@?[a-z0-9][a-z0-9._~%-]*@[a-z0-9][a-z0-9._+-]*$/i.test(spec)) return false;
      const abs = path.join(root, '-', 'npm', 'v1', 'attestations', `${spec}.json`);
      try {
        sendBody(req, res, 200, { 'Content-Type': 'application/json' }, await fsp.readFile(abs));
      } catch {
        sendJson(req, res, 404, { error: 'Not found' });
      }
      return true;
    }
    const parsed = parseNpmPath(pathOf(req.url));
    if (!parsed) return false;
    const { name, rest } = parsed;

    if (rest.length === 2 && rest[0] === '-') {
      const file = rest[1]!;
      if (!TARBALL.test(file)) return false;
      const abs = path.join(root, ...name.split('/'), '-', file);
      try {
        if (!(await fsp.stat(abs)).isFile()) throw new Error('not a file');
      } catch {
        sendJson(req, res, 404, { error: 'Not found' });
        return true;
      }
      await sendFile(req, res, up, abs);
      return true;
    }
    if (rest.length > 1) return false;

    const found = await readPackument(root, name, up.url);
    if (!found) {
      sendJson(req, res, 404, { error: 'Not found' });
      return true;
    }
    const doc = JSON.parse(found.body.toString('utf8')) as Packument;

    if (rest.length === 1) {
      const wanted = rest[0]!;
      const version = doc['dist-tags']?.[wanted] ?? wanted;
      const manifest = doc.versions?.[version];
      if (!manifest) {
        sendJson(req, res, 404, { error: `version not found: ${wanted}` });
        return true;
      }
      sendBody(req, res, 200, { 'Content-Type': 'application/json' }, JSON.stringify(manifest), {
        lastModified: found.mtime,
      });
      return true;
    }

    if (wantsAbbreviated(req)) {
      sendBody(
        req,
        res,
        200,
        { 'Content-Type': NPM_ABBREVIATED_TYPE, Vary: 'Accept' },
        JSON.stringify(abbreviatePackument(doc)),
        {
          lastModified: found.mtime,
        },
      );
    } else {
      sendBody(req, res, 200, { 'Content-Type': 'application/json', Vary: 'Accept' }, found.body, {
        lastModified: found.mtime,
      });
    }
    return true;
  };
}
