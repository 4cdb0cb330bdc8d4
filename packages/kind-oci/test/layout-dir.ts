/** OCI layout folders for kind-oci's client tests: a temp folder per test, and what skopeo wrote into one. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import type { Image } from './image.js';

/** A temp folder removed when the test ends. */
export function tempDir(t: Test, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The layout skopeo wrote: its top index's first entry, and whether every blob of `image` is there. */
export function pulled(dir: string, image: Image): { digest: string; complete: boolean } {
  const top = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')) as { manifests: { digest: string }[] };
  const has = (d: string) => fs.existsSync(path.join(dir, 'blobs', 'sha256', d.slice(7)));
  return {
    digest: top.manifests[0]!.digest,
    complete: [...image.manifests.values(), ...image.blobs.values()].every((b) => has(b.digest)),
  };
}
