/**
 * Gem names, version tokens and gem file names.
 *
 * A version token is what the compact index lists and what a file name carries: `<version>` for the
 * `ruby` platform, `<version>-<platform>` otherwise (`1.15.0-x86_64-linux`). RubyGems turns every `-`
 * of a version into `.pre.`, so the first `-` of a token ends the version. The token is the
 * coordinate's version: blocks, unlisting and the audit name one platform build, as a yank does.
 */
const NAME = /^[A-Za-z0-9._-]{1,128}$/;
const TOKEN = /^[0-9]+(?:\.[0-9A-Za-z]+)*(?:-[A-Za-z][A-Za-z0-9_.-]{0,63})?$/;

/** RubyGems' own name rule, plus a letter, digit or `_` (so `.` and `..` are never names). */
export const isGemName = (s: string): boolean => NAME.test(s) && /[A-Za-z0-9_]/.test(s);
export const isVersionToken = (s: string): boolean => s.length <= 128 && TOKEN.test(s);

/** The platform part of a token, or null for a `ruby`-platform version. */
export function platformOf(token: string): string | null {
  const dash = token.indexOf('-');
  return dash === -1 ? null : token.slice(dash + 1);
}

/** `1.15.0` and `1.15.0-x86_64-linux` both have base version `1.15.0`. */
export const baseVersion = (token: string): string => token.split('-', 1)[0]!;

/**
 * Whether an unlisted set hides a listed token: the token itself is unlisted, or its bare version is
 * (a bare version covers each platform build of it; otherwise bundler would resolve the platform build).
 */
export const isHidden = (hidden: ReadonlySet<string>, token: string): boolean =>
  hidden.size > 0 && (hidden.has(token) || hidden.has(baseVersion(token)));

export const fileName = (name: string, token: string): string => `${name}-${token}`;

export interface Split {
  name: string;
  token: string;
}

/**
 * Every reading of `<name>-<token>` (a file name without its extension) that is a valid gem name and
 * a valid token. Usually one; two for names like `a-1.0-x86_64-darwin-19`, which is gem `a` version
 * `1.0-x86_64-darwin-19` or gem `a-1.0-x86_64-darwin` version `19`. Only the upstream's listing can
 * tell them apart (see resolve.ts).
 */
export function splits(base: string): Split[] {
  const out: Split[] = [];
  for (let i = base.indexOf('-'); i !== -1; i = base.indexOf('-', i + 1)) {
    const name = base.slice(0, i);
    const token = base.slice(i + 1);
    if (isGemName(name) && isVersionToken(token)) out.push({ name, token });
  }
  return out;
}
