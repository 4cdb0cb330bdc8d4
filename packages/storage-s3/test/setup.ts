import crypto from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));

export const sha256 = (b: Buffer): string => crypto.createHash('sha256').update(b).digest('hex');

/** The object key of a blob under the store's layout. */
export const blobKey = (sha: string, prefix = ''): string =>
  `${prefix}sha256/${sha.slice(0, 2)}/${sha.slice(2, 4)}/${sha}`;

/** Files left in a hub's local spool (none once every download is stored or discarded). */
export const spoolFiles = (spool: string): string[] =>
  fs.existsSync(`${spool}/tmp`) ? fs.readdirSync(`${spool}/tmp`) : [];
