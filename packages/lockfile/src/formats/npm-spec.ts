/** Splits `name@version` (the name may be scoped: `@scope/name@1.0.0`) at the last `@` after the first character. */
export function splitAt(spec: string): { name: string; rest: string } | null {
  const at = spec.indexOf('@', 1);
  return at > 0 ? { name: spec.slice(0, at), rest: spec.slice(at + 1) } : null;
}
