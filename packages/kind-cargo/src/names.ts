/**
 * Crate names and versions. Cargo compares crate names case-insensitively (the index path is the
 * lower-cased name), but keeps `-` and `_` apart, so hub's canonical name, used for cache keys,
 * blocks, unlisting and flags, is the name lower-cased and nothing more.
 */
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;
const VERSION = /^[0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

export const isCrateName = (s: string): boolean => NAME.test(s);
export const isCrateVersion = (s: string): boolean => s.length <= 128 && VERSION.test(s);
export const canonicalName = (s: string): string => s.toLowerCase();

/**
 * The name with case and `-`/`_` folded (`Foo_Bar` and `foo-bar` give `foo-bar`): the public crate registry's rule for
 * which names are one crate. hub keeps the canonical name above for everything it proxies (an index path
 * keeps its `-`/`_`), and uses this fold only for what is published here: one spelling per folded name,
 * and a name published here owns every spelling of it in a hybrid registry (see src/publish.ts).
 */
export const foldName = (s: string): string => s.toLowerCase().replaceAll('_', '-');

/** The directory part of a crate's index path: `1`, `2`, `3/a`, or `ab/cd` (in the name's own case). */
export function indexPrefix(name: string): string {
  if (name.length <= 2) return String(name.length);
  if (name.length === 3) return `3/${name[0]}`;
  return `${name.slice(0, 2)}/${name.slice(2, 4)}`;
}

/** Where a crate's index file lives below the index root: always lower-case. */
export const indexPath = (name: string): string => {
  const lower = canonicalName(name);
  return `${indexPrefix(lower)}/${lower}`;
};

/**
 * The crate name of an index file path (the segments below the index root), lower-cased, or null
 * when the segments do not have the shape of an index path. A malformed name is a bad request; a
 * well-formed name under the wrong prefix directories is simply not an index file.
 */
export function nameFromIndexPath(
  s: readonly string[],
): { name: string } | { error: 'bad_name' | 'wrong_prefix'; name: string } | null {
  const shaped =
    (s.length === 2 && (s[0] === '1' || s[0] === '2')) || (s.length === 3 && (s[0] === '3' || s[0]!.length === 2));
  if (!shaped) return null;
  const file = s.at(-1)!;
  if (!isCrateName(file)) return { error: 'bad_name', name: file };
  const name = canonicalName(file);
  const asked = s.map((x) => x.toLowerCase()).join('/');
  return asked === indexPath(name) ? { name } : { error: 'wrong_prefix', name };
}
