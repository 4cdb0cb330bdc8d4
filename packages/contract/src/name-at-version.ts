import type { Coordinate, CoordinateCodec } from './kind.js';

export interface NameAtVersionOptions {
  /**
   * Which `@` separates the version: `last` where names may contain one (npm scopes, go module paths),
   * `first` where versions may (forge tags like `pkg@1.0.0`). An `@` at the very start never separates.
   */
  split: 'first' | 'last';
  isName(name: string): boolean;
  /** Default: any non-empty version. */
  isVersion?(version: string): boolean;
  /** Case folding and the like, applied to every name parse accepts (and offered to the runtime). */
  normalizeName?(name: string): string;
  /** The canonical spelling of a version that `isVersion` accepted; null when it has none. */
  normalizeVersion?(version: string): string | null;
  /** The spelling every spelling of one version shares (offered to the runtime as the codec's `canonicalVersion`). */
  canonicalVersion?(version: string): string;
}

/**
 * The `name[@version]` text form most kinds use for coordinates (docs/coordinates.md). An empty
 * version (`name@`) is malformed.
 *
 * @example
 * coordinate: nameAtVersion({ split: 'last', isName: isPackageName }) // `@scope/pkg@1.0.0`
 */
export function nameAtVersion(o: NameAtVersionOptions): CoordinateCodec {
  const normalizeName = o.normalizeName ?? ((name: string) => name);
  return {
    parse(text: string): Coordinate | null {
      const at = o.split === 'last' ? text.lastIndexOf('@') : text.indexOf('@');
      const [name, raw] = at > 0 ? [text.slice(0, at), text.slice(at + 1)] : [text, undefined];
      if (!o.isName(name)) return null;
      if (raw === undefined) return { name: normalizeName(name) };
      if (raw === '' || (o.isVersion && !o.isVersion(raw))) return null;
      const version = o.normalizeVersion ? o.normalizeVersion(raw) : raw;
      return version === null ? null : { name: normalizeName(name), version };
    },
    format: (c: Coordinate): string => (c.version ? `${c.name}@${c.version}` : c.name),
    ...(o.normalizeName ? { normalizeName: o.normalizeName } : {}),
    ...(o.canonicalVersion ? { canonicalVersion: o.canonicalVersion } : {}),
  };
}
