import { errors } from '@hub/contract';

/** npm package names as the registry accepts them (legacy upper-case names included). */
const NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-zA-Z0-9][a-zA-Z0-9._~-]*$/;
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,255}$/;

export const isPackageName = (s: string): boolean => s.length <= 214 && NAME.test(s);
export const isVersion = (s: string): boolean => VERSION.test(s);

/** The name, or 400 when it is not an npm package name. */
export function checkedName(name: string): string {
  if (!isPackageName(name)) throw errors.badRequest(`"${name.slice(0, 100)}" is not a valid npm package name`);
  return name;
}

/**
 * The package name at the start of the path segments, in either encoding of a scoped name:
 * one segment `@scope/name` (sent as `@scope%2fname`) or two segments `@scope`, `name`.
 */
export function takeName(segments: readonly string[]): { name: string; rest: readonly string[] } | null {
  const first = segments[0];
  if (!first) return null;
  if (first.startsWith('@') && !first.includes('/')) {
    const second = segments[1];
    return second ? { name: `${first}/${second}`, rest: segments.slice(2) } : null;
  }
  return { name: first, rest: segments.slice(1) };
}

/** How the upstream registry spells the packument path: `@scope%2fname`. */
export const upstreamPath = (name: string): string => name.replace('/', '%2f');

/** The tarball file name: `<name without scope>-<version>.tgz`. */
export const tarballFile = (name: string, version: string): string =>
  `${name.slice(name.lastIndexOf('/') + 1)}-${version}.tgz`;

export function versionFromFile(name: string, file: string): string | null {
  const base = `${name.slice(name.lastIndexOf('/') + 1)}-`;
  if (!file.startsWith(base) || !file.endsWith('.tgz')) return null;
  const v = file.slice(base.length, -4);
  return isVersion(v) ? v : null;
}
