import type { Readable } from 'node:stream';
import { findInZip, readCapped, type SbomExtractor } from '@hub/contract';
import { requiresDist } from './core-metadata.js';

/** A wheel's `<name>-<version>.dist-info/METADATA`, at the top level of the zip. */
const isWheelMetadata = (n: string) => /^[^/]+\.dist-info\/METADATA$/.test(n);

/** Whether the stream starts with a zip's `PK`; the bytes read are put back, so the stream still starts at byte 0. */
async function startsAsZip(body: Readable): Promise<boolean> {
  for (;;) {
    const chunk = body.read() as Buffer | null;
    if (chunk !== null) {
      body.unshift(chunk);
      return chunk[0] === 0x50 && chunk[1] === 0x4b;
    }
    if (body.readableEnded || body.destroyed) return false;
    await new Promise<void>((resolve) => {
      const done = () => {
        body.off('readable', done).off('end', done).off('error', done).off('close', done);
        resolve();
      };
      body.on('readable', done).on('end', done).on('error', done).on('close', done);
    });
  }
}

/** Dependencies from a wheel's METADATA, or from a PEP 658 `.metadata` file hub holds. */
export const sbom: SbomExtractor = {
  appliesTo: (key) => key.startsWith('files/') && (key.endsWith('.whl') || key.endsWith('.whl.metadata')),
  async extract(body, limits) {
    // extract is not told the key: a wheel is a zip, a `.metadata` file is the METADATA text itself.
    if (await startsAsZip(body)) {
      const found = await findInZip(body, isWheelMetadata, limits);
      return found ? requiresDist(found.data.toString('utf8')) : [];
    }
    return requiresDist((await readCapped(body, limits.maxBytes)).toString('utf8'));
  },
};
