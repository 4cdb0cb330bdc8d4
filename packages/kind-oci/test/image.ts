/**
 * A small multi-arch image built in memory: per platform a gzipped tar layer holding one text file, a config and
 * a manifest; an index over them. Written as an OCI layout for skopeo, or served by the fixture registry.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { makeTar } from '@hub/testkit';

export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
export const DOCKER_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';

export const digestOf = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

export interface Blob {
  digest: string;
  body: Buffer;
  mediaType: string;
}

export interface Image {
  /** The index (or, for `docker`, the manifest list). */
  index: Blob;
  /** Per platform (`linux/amd64`, `linux/arm64`): its manifest. */
  manifests: Map<string, Blob>;
  /** Every blob (configs and layers) by digest. */
  blobs: Map<string, Blob>;
}

/** One file in a ustar archive. */
export const tar = (name: string, content: Buffer): Buffer => makeTar([[name, content]]);

const blob = (mediaType: string, body: Buffer): Blob => ({ digest: digestOf(body), body, mediaType });
const json = (v: unknown) => Buffer.from(JSON.stringify(v));

/** A layer to share between images (`buildImage(seed, { base })`), as two images on one base image share it. */
export const baseLayer = (seed: string): Blob =>
  blob('application/vnd.oci.image.layer.v1.tar+gzip', gzipSync(tar('base.txt', Buffer.from(`base ${seed}\n`))));

/**
 * `seed` makes the bytes (so the digests) differ between two builds, as a new push of a tag would. `base`: a
 * layer every platform's image has below its own.
 */
export function buildImage(seed: string, o: { docker?: boolean; base?: Blob } = {}): Image {
  const blobs = new Map<string, Blob>();
  const manifests = new Map<string, Blob>();
  const entries: unknown[] = [];
  for (const arch of ['amd64', 'arm64']) {
    const raw = tar('hello.txt', Buffer.from(`hello from ${seed} on ${arch}\n`));
    const layer = blob(
      o.docker ? 'application/vnd.docker.image.rootfs.diff.tar.gzip' : 'application/vnd.oci.image.layer.v1.tar+gzip',
      gzipSync(raw),
    );
    const config = blob(
      o.docker ? 'application/vnd.docker.container.image.v1+json' : 'application/vnd.oci.image.config.v1+json',
      json({
        architecture: arch,
        os: 'linux',
        config: { Labels: { seed } },
        rootfs: { type: 'layers', diff_ids: [...(o.base ? [digestOf(gunzipSync(o.base.body))] : []), digestOf(raw)] },
        history: [{ created_by: 'test' }],
      }),
    );
    blobs.set(layer.digest, layer);
    blobs.set(config.digest, config);
    const layers = o.base ? [o.base, layer] : [layer];
    if (o.base) blobs.set(o.base.digest, o.base);
    const type = o.docker ? DOCKER_MANIFEST : OCI_MANIFEST;
    const m = blob(
      type,
      json({
        schemaVersion: 2,
        mediaType: type,
        config: { mediaType: config.mediaType, digest: config.digest, size: config.body.length },
        layers: layers.map((l) => ({ mediaType: l.mediaType, digest: l.digest, size: l.body.length })),
      }),
    );
    manifests.set(`linux/${arch}`, m);
    entries.push({
      mediaType: type,
      digest: m.digest,
      size: m.body.length,
      platform: { architecture: arch, os: 'linux' },
    });
  }
  const listType = o.docker ? DOCKER_LIST : OCI_INDEX;
  return {
    index: blob(listType, json({ schemaVersion: 2, mediaType: listType, manifests: entries })),
    manifests,
    blobs,
  };
}

/** An OCI image layout holding `image` as `tag`, for `skopeo copy --all oci:<dir>:<tag> ...`. */
export function writeOciLayout(dir: string, image: Image, tag: string): void {
  const blobsDir = path.join(dir, 'blobs', 'sha256');
  fs.mkdirSync(blobsDir, { recursive: true });
  for (const b of [image.index, ...image.manifests.values(), ...image.blobs.values()])
    fs.writeFileSync(path.join(blobsDir, b.digest.slice(7)), b.body);
  fs.writeFileSync(path.join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  fs.writeFileSync(
    path.join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: image.index.mediaType,
          digest: image.index.digest,
          size: image.index.body.length,
          annotations: { 'org.opencontainers.image.ref.name': tag },
        },
      ],
    }),
  );
}
