/**
 * A hub with a local oci registry (`box`) and the publishing plugin, and a small raw client of the push API
 * (fetch: the paths are plain; rawRequest is for hostile ones).
 */
import type { Test } from 'tap';
import admin from '@hub/admin';
import publishing from '@hub/publishing';
import { startTestHub, TEST_MYSQL_URL, createTestDatabase, type TestHub } from '@hub/testkit';
import oci from '../src/index.js';
import { digestOf, type Blob, type Image } from './image.js';

export interface Hosted extends TestHub {
  /** `${url}/v2/box` */
  base: string;
  /** A token of a user with the publisher role. */
  publisher: string;
  /** Another publisher. */
  other: string;
  reader: string;
}

export async function hostedHub(
  t: Test,
  o: { registry?: Record<string, unknown>; mysql?: boolean; config?: Record<string, Record<string, unknown>> } = {},
): Promise<Hosted> {
  let mysqlUrl: string | undefined;
  if (o.mysql) {
    const db = await createTestDatabase(TEST_MYSQL_URL!);
    t.teardown(() => db.drop());
    mysqlUrl = db.url;
  }
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [oci, publishing, admin],
    registries: [{ name: 'box', type: 'oci', mode: 'local', ...o.registry }],
    mysqlUrl,
    config: o.config,
  });
  t.teardown(() => hub.close());
  return {
    ...hub,
    base: `${hub.url}/v2/box`,
    publisher: await hub.token('pub', { roles: ['publisher'] }),
    other: await hub.token('pub2', { roles: ['publisher'] }),
    reader: await hub.token('dev', { roles: ['reader'] }),
  };
}

export const auth = (token: string, user = 'x') => ({
  authorization: `Basic ${Buffer.from(`${user}:${token}`).toString('base64')}`,
});

export interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
  json(): any;
}

/** One request; `path` relative to the hub (`/v2/box/...`) or absolute. */
export async function call(
  hub: { url: string },
  method: string,
  path: string,
  token: string | null,
  body?: Buffer,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(path.startsWith('http') ? path : `${hub.url}${path}`, {
    method,
    headers: { ...(token ? auth(token) : {}), ...headers },
    body: body ?? undefined,
    redirect: 'manual',
  });
  const b = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body: b, json: () => JSON.parse(b.toString('utf8')) };
}

/** Pushes one blob monolithically (`POST ?digest=`). */
export async function pushBlob(hub: { url: string }, repo: string, token: string, b: Buffer): Promise<Answer> {
  return call(hub, 'POST', `/v2/box/${repo}/blobs/uploads/?digest=${digestOf(b)}`, token, b, {
    'content-type': 'application/octet-stream',
  });
}

export async function pushManifest(
  hub: { url: string },
  repo: string,
  ref: string,
  token: string,
  m: Blob,
): Promise<Answer> {
  return call(hub, 'PUT', `/v2/box/${repo}/manifests/${ref}`, token, m.body, { 'content-type': m.mediaType });
}

/** Every blob and platform manifest of `image`, then its index under `tag`. */
export async function pushImage(
  hub: { url: string },
  repo: string,
  tag: string,
  token: string,
  image: Image,
): Promise<void> {
  for (const b of image.blobs.values()) {
    const r = await pushBlob(hub, repo, token, b.body);
    if (r.status !== 201) throw new Error(`blob push: ${r.status} ${r.body.toString()}`);
  }
  for (const m of image.manifests.values()) {
    const r = await pushManifest(hub, repo, m.digest, token, m);
    if (r.status !== 201) throw new Error(`manifest push: ${r.status} ${r.body.toString()}`);
  }
  const r = await pushManifest(hub, repo, tag, token, image.index);
  if (r.status !== 201) throw new Error(`index push: ${r.status} ${r.body.toString()}`);
}
