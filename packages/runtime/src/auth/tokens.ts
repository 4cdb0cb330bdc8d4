import crypto from 'node:crypto';

/** Tokens are stored only as SHA-256; the plain text is shown once, at creation. */
export const hashToken = (token: string): string => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

/** How many tokens' hashes a memo remembers (a client sends the same token on every request). */
export const TOKEN_HASH_MEMO_ENTRIES = 1024;

/**
 * hashToken() remembering the last TOKEN_HASH_MEMO_ENTRIES tokens, so a warm request does not hash its token
 * again; every check made on the hash (refused, revoked, blocked, expired) is still made on every request.
 * Past the bound the oldest is forgotten (a flood of new tokens only costs their hashing, as without a memo).
 */
export function memoisedTokenHash(entries = TOKEN_HASH_MEMO_ENTRIES): (token: string) => string {
  const hashes = new Map<string, string>();
  return (token) => {
    let hash = hashes.get(token);
    if (hash === undefined) {
      hash = hashToken(token);
      if (hashes.size >= entries) hashes.delete(hashes.keys().next().value!);
      hashes.set(token, hash);
    }
    return hash;
  };
}

export function newToken(): { id: string; token: string } {
  return { id: crypto.randomBytes(8).toString('hex'), token: `hub_${crypto.randomBytes(32).toString('base64url')}` };
}
