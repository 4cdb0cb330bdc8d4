import crypto from 'node:crypto';

/** Tokens are stored only as SHA-256; the plain text is shown once, at creation. */
export const hashToken = (token: string): string => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

export function newToken(): { id: string; token: string } {
  return { id: crypto.randomBytes(8).toString('hex'), token: `hub_${crypto.randomBytes(32).toString('base64url')}` };
}
