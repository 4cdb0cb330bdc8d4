/**
 * Serve a Go module proxy fixture folder (GOPROXY protocol).
 *
 * Layout below `root` (module paths case-escaped: an uppercase letter becomes
 * "!" + its lowercase, e.g. example.com/!hub/demo):
 *   <escaped module>/@v/list
 *   <escaped module>/@v/<version>.info
 *   <escaped module>/@v/<version>.mod
 *   <escaped module>/@v/<version>.zip
 *
 * `/<escaped module>/@latest` is answered from the highest version in
 * `@v/list` (its .info file, or a synthesised {"Version","Time"}). Everything
 * else is served statically; what is missing falls through to the fake
 * server's plain-text 404 "not found".
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { comparePrerelease } from '@hub/runtime';
import { promises as fsp } from 'node:fs';
import { pathOf, resolveUnderRoot, sendBody, serveStatic } from './fixture-upstream.js';
import type { FixtureHandler, FixtureUpstream } from './fixture-upstream.js';

/** Go's module path case escaping: "Hub" -> "!hub". */
export function escapeModulePath(modulePath: string): string {
  return modulePath.replace(/[A-Z]/g, (c) => '!' + c.toLowerCase());
}

export function unescapeModulePath(escaped: string): string {
  return escaped.replace(/!([a-z])/g, (_m, c: string) => c.toUpperCase());
}

interface Semver {
  nums: [number, number, number];
  pre: string[];
}

function parseSemver(v: string): Semver | null {
  const m = /^v(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(v);
  if (!m) return null;
  return { nums: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [] };
}

/** Semver comparison of Go versions ("v1.2.3", "v1.2.3-pre.1"). Invalid sorts lowest. */
export function compareGoVersions(a: string, b: string): number {
  const x = parseSemver(a);
  const y = parseSemver(b);
  if (!x || !y) return x ? 1 : y ? -1 : 0;
  for (let i = 0; i < 3; i++) if (x.nums[i] !== y.nums[i]) return x.nums[i]! - y.nums[i]!;
  return comparePrerelease(x.pre, y.pre);
}

/** What `@latest` picks: the highest release, or the highest pre-release when there is no release. */
export function latestGoVersion(versions: string[]): string | undefined {
  const valid = versions.filter((v) => parseSemver(v) !== null);
  const releases = valid.filter((v) => parseSemver(v)!.pre.length === 0);
  const pool = releases.length > 0 ? releases : valid;
  return pool.sort(compareGoVersions).at(-1);
}

export function goFixtureHandler(root: string): FixtureHandler {
  return async (req: IncomingMessage, res: ServerResponse, up: FixtureUpstream): Promise<boolean> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const urlPath = pathOf(req.url);
    const m = /^\/(.+)\/@latest$/.exec(urlPath);
    if (m) {
      const list = await resolveUnderRoot(root, `/${m[1]}/@v/list`);
      if (!list) return false;
      const versions = (await fsp.readFile(list.file, 'utf8'))
        .split('\n')
        .map((s) => s.trim())
        .filter(Boolean);
      const latest = latestGoVersion(versions);
      if (!latest) return false;
      const info = await resolveUnderRoot(root, `/${m[1]}/@v/${latest}.info`);
      const body = info
        ? await fsp.readFile(info.file)
        : JSON.stringify({ Version: latest, Time: list.stat.mtime.toISOString().replace(/\.\d{3}Z$/, 'Z') });
      sendBody(req, res, 200, { 'Content-Type': 'application/json' }, body, { lastModified: list.stat.mtime });
      return true;
    }
    return serveStatic(root, req, res, up);
  };
}
