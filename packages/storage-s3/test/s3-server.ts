import fs from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { Test } from 'tap';

export const BUCKET = 'hub';

export interface TestS3 {
  /** What the hub is given: a cuttable proxy in front of the S3 server. */
  endpoint: string;
  /** Every object key in the bucket (read from the server directly, past the proxy). */
  keys(): Promise<string[]>;
  /** The proxy drops every connection now and refuses new ones: the hub sees S3 gone. */
  down(): void;
  /** As down(), once this many request bytes (headers and body) have passed: an upload cut mid-way. */
  downAfter(bytes: number): void;
  up(): void;
  /** Request bytes that reached the server through the proxy. */
  sent(): number;
}

/**
 * A real S3-protocol server (s3rver) on loopback with a bucket `hub`, keeping objects in `directory`, stopped
 * at the end of the test. The hub reaches it through a TCP proxy the test can cut.
 */
export async function startS3(t: Test, directory: string): Promise<TestS3> {
  fs.mkdirSync(directory, { recursive: true });
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await server.run();
  const direct = new S3Client({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });

  let isDown = false;
  let budget = Infinity;
  let sent = 0;
  const sockets = new Set<net.Socket>();
  const cut = () => {
    isDown = true;
    for (const s of sockets) s.destroy();
  };
  const proxy = net.createServer((client) => {
    if (isDown) return void client.destroy();
    const upstream = net.connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    const forget = () => (sockets.delete(client), sockets.delete(upstream));
    client.on('close', forget).on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy()).on('close', () => client.destroy());
    client.on('data', (chunk: Buffer) => {
      if (isDown) return;
      if (sent + chunk.length > budget) {
        // Let part of this chunk through, then drop everything: the server has a partial request.
        upstream.write(chunk.subarray(0, Math.max(0, budget - sent)), cut);
        sent = budget;
        return;
      }
      sent += chunk.length;
      upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));

  t.teardown(async () => {
    cut();
    await new Promise((r) => proxy.close(r));
    direct.destroy();
    server.httpServer?.closeAllConnections();
    await server.close();
  });

  return {
    endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    async keys() {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const page = await direct.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }));
        for (const o of page.Contents ?? []) if (o.Key) out.push(o.Key);
        token = page.NextContinuationToken;
      } while (token);
      return out.sort();
    },
    down: cut,
    downAfter(bytes) {
      budget = sent + bytes;
    },
    up() {
      isDown = false;
      budget = Infinity;
    },
    sent: () => sent,
  };
}

/** The `[storage]` table of a hub on this server; `path` is the hub's local spool folder. */
export const s3Storage = (s3: TestS3, path: string, prefix?: string) => ({
  kind: 's3',
  bucket: BUCKET,
  endpoint: s3.endpoint,
  force_path_style: true,
  access_key_id: 'S3RVER',
  secret_access_key: 'S3RVER',
  path,
  ...(prefix !== undefined ? { prefix } : {}),
});
