import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS dependency loaded when it is first needed, not when hub starts: the XML, zip, tar and
 * multipart readers are used by some requests of some kinds, and an idle hub need not hold their code
 * (issue 32, idle RSS). Synchronous, so the helpers built on it keep their signatures.
 */
export function onFirstUse<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}
