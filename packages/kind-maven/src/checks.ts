import { looksLikeHtml } from '@hub/contract';
import type { ChecksumAlgorithm } from './layout.js';
import { firstElement } from './xml.js';

/**
 * Head checks for the files of a version folder, run on the first bytes before anything is cached or
 * answered: each refuses what an error page served with status 200 looks like.
 */

const CHECKSUM_HEX: Record<ChecksumAlgorithm, number> = { md5: 32, sha1: 40, sha256: 64, sha512: 128 };

/** A POM must open (after the declaration and comments) with `<project>`; the rest is Maven's business. */
export function checkPomHead(head: Buffer): string | null {
  const text = head.toString('latin1');
  if (/<!(?:DOCTYPE|ENTITY)/i.test(text)) return 'has a DOCTYPE (not allowed: no entities are expanded)';
  const first = firstElement(text);
  if ('refused' in first) return first.refused;
  if ('incomplete' in first) return head.length >= 512 ? null : 'has no root element';
  return first.name === 'project' ? null : `its root element is <${first.name}>, not <project>`;
}

/** An upstream checksum file: the hex digest, optionally followed by a file name (old repositories). */
export const checkChecksumHead = (algorithm: ChecksumAlgorithm) => (head: Buffer) =>
  new RegExp(`^\\s*[0-9a-fA-F]{${CHECKSUM_HEX[algorithm]}}(?:\\s|$)`).test(head.toString('latin1'))
    ? null
    : `is not a ${algorithm} checksum file`;

export const checkSignatureHead = (head: Buffer) =>
  head.toString('latin1').trimStart().startsWith('-----BEGIN PGP') ? null : 'is not an armoured PGP signature';

/** Anything else must at least not be an HTML error page. */
export const checkNotHtml = (head: Buffer) => (looksLikeHtml(head) ? 'is an HTML page' : null);
