/**
 * Reads one pull of a feed, bounded: an http(s) URL (a JSON array of OSV records, or a zip of OSV JSON files
 * as in the OSV bulk export) asked conditionally with the last ETag and Last-Modified, or a local folder of
 * OSV `*.json` whose listing (names, sizes, modification times) stands in for the validators. Each record is
 * handed to `visit` as parsed JSON; anything too big, too many, unreadable or not JSON fails the whole pull.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { forEachZipEntry, isArchiveError, type serverDispatcher } from '@hub/runtime';

/** The server-level proxy and CAs (`[server] upstream_proxy`, `ca_file`), as for other configured services outside a registry. */
export type FeedNetwork = Awaited<ReturnType<typeof serverDispatcher>>;
/** Redirects a feed URL may take (a bucket behind a CDN answers with one or two). */
const MAX_REDIRECTS = 5;
import type { AdvisoryFeedConfig } from './feed-config.js';

/** A JSON-array feed is parsed whole, so it is capped tighter than a zip, which is read entry by entry. */
export const MAX_JSON_FEED_BYTES = 64 * 1024 * 1024;
/** Folders deeper than this under `directory` are not read. */
const MAX_DEPTH = 8;

export class FeedError extends Error {}

export interface Validators {
  etag: string | null;
  last_modified: string | null;
  fingerprint: string | null;
}

export type FeedRead = { notModified: true } | { notModified: false; records: number; validators: Validators };

/**
 * Pulls the feed; `visit` sees every record before this resolves. `setup` hashes what else decides the flags
 * (effect, ecosystems, registries): kept as the `fingerprint`, so a changed config reads the feed again even
 * where the feed itself would answer 304.
 */
export async function readFeed(
  feed: AdvisoryFeedConfig,
  setup: string,
  prior: Validators,
  visit: (record: unknown) => void,
  dispatcher: () => Promise<FeedNetwork>,
): Promise<FeedRead> {
  if (feed.directory !== undefined) return readDirectory(feed, feed.directory, setup, prior, visit);
  const same = prior.fingerprint === setup;
  return readUrl(
    feed,
    feed.url!,
    same ? prior : { etag: null, last_modified: null, fingerprint: null },
    visit,
    await dispatcher(),
    setup,
  );
}

function parse(data: Buffer | string, where: string): unknown {
  try {
    return JSON.parse(data.toString());
  } catch (e) {
    throw new FeedError(`${where} is not JSON: ${(e as Error).message.slice(0, 200)}`);
  }
}

/** GET with the validators, following up to MAX_REDIRECTS http(s) redirects. */
async function get(network: FeedNetwork, url: string, headers: Record<string, string>, signal: AbortSignal) {
  let at = new URL(url);
  for (let hop = 0; ; hop++) {
    let res: Awaited<ReturnType<FeedNetwork['request']>>;
    try {
      res = await network.request({
        origin: at.origin,
        path: `${at.pathname}${at.search}`,
        method: 'GET',
        headers: { ...headers, host: at.host },
        signal,
      });
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { cause?: { code?: string } };
      throw new FeedError(`fetching the feed failed: ${err.code ?? err.cause?.code ?? err.message}`);
    }
    const location = res.headers.location;
    if (res.statusCode < 300 || res.statusCode > 399 || res.statusCode === 304 || typeof location !== 'string')
      return res;
    res.body.resume();
    const next = URL.canParse(location, at.href) ? new URL(location, at) : null;
    if (!next || (next.protocol !== 'http:' && next.protocol !== 'https:'))
      throw new FeedError('the feed redirected to something that is not an http(s) URL');
    if (hop >= MAX_REDIRECTS) throw new FeedError(`the feed redirected more than ${MAX_REDIRECTS} times`);
    at = next;
  }
}

const header = (v: string | string[] | undefined): string | null => (Array.isArray(v) ? (v[0] ?? null) : (v ?? null));

async function readUrl(
  feed: AdvisoryFeedConfig,
  url: string,
  prior: Validators,
  visit: (record: unknown) => void,
  network: FeedNetwork,
  setup: string,
): Promise<FeedRead> {
  const headers: Record<string, string> = { accept: 'application/json, application/zip;q=0.9' };
  if (prior.etag) headers['if-none-match'] = prior.etag;
  if (prior.last_modified) headers['if-modified-since'] = prior.last_modified;
  const signal = AbortSignal.timeout(feed.timeout_secs * 1000);
  const res = await get(network, url, headers, signal);
  if (res.statusCode === 304) {
    res.body.resume();
    return { notModified: true };
  }
  if (res.statusCode !== 200) {
    res.body.resume();
    throw new FeedError(`the feed answered HTTP ${res.statusCode}`);
  }
  const declared = Number(header(res.headers['content-length']) ?? NaN);
  if (declared > feed.max_bytes) {
    // Not read: the connection is dropped (its abort error is expected, not a crash).
    res.body.on('error', () => undefined).destroy();
    throw new FeedError(`the feed is ${declared} bytes, over max_bytes (${feed.max_bytes})`);
  }
  const validators = {
    etag: header(res.headers.etag),
    last_modified: header(res.headers['last-modified']),
    fingerprint: setup,
  };
  const file = path.join(os.tmpdir(), `hub-feed-${randomUUID()}`);
  try {
    await spool(res.body, file, feed.max_bytes, signal);
    const records = await readFile(feed, file, visit);
    return { notModified: false, records, validators };
  } finally {
    await fs.promises.rm(file, { force: true });
  }
}

/** The body into `file`, failing past maxBytes, whatever Content-Length said. */
async function spool(body: Readable, file: string, maxBytes: number, signal: AbortSignal): Promise<void> {
  let seen = 0;
  async function* capped(source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      seen += chunk.length;
      if (seen > maxBytes) throw new FeedError(`the feed is larger than max_bytes (${maxBytes})`);
      yield chunk;
    }
  }
  try {
    await pipeline(body, capped, fs.createWriteStream(file, { flags: 'wx' }), { signal });
  } catch (e) {
    body.on('error', () => undefined).destroy();
    if (e instanceof FeedError) throw e;
    throw new FeedError(`reading the feed failed: ${(e as Error).message}`);
  }
}

/** A spooled body: a zip (by its magic) or a JSON array. */
async function readFile(feed: AdvisoryFeedConfig, file: string, visit: (record: unknown) => void): Promise<number> {
  const head = Buffer.alloc(4);
  const fd = await fs.promises.open(file, 'r');
  let size: number;
  try {
    await fd.read(head, 0, 4, 0);
    size = (await fd.stat()).size;
  } finally {
    await fd.close();
  }
  if (head[0] === 0x50 && head[1] === 0x4b) {
    let records = 0;
    try {
      await forEachZipEntry(
        file,
        { maxBytes: feed.max_bytes, maxEntries: feed.max_records, maxEntryBytes: feed.max_record_bytes },
        (name, data) => {
          if (!name.toLowerCase().endsWith('.json')) return;
          records++;
          visit(parse(data, `zip entry ${JSON.stringify(name.slice(0, 200))}`));
        },
      );
    } catch (e) {
      if (isArchiveError(e)) throw new FeedError(`the feed's zip: ${e.message}`);
      throw e;
    }
    return records;
  }
  if (size > MAX_JSON_FEED_BYTES)
    throw new FeedError(
      `a JSON feed is parsed whole, so at most ${MAX_JSON_FEED_BYTES} bytes (this one is ${size}); serve a zip of OSV files instead`,
    );
  const doc = parse(await fs.promises.readFile(file), 'the feed');
  if (!Array.isArray(doc))
    throw new FeedError('the feed is neither a JSON array of OSV records nor a zip of OSV JSON files');
  if (doc.length > feed.max_records)
    throw new FeedError(`the feed has ${doc.length} records, over max_records (${feed.max_records})`);
  for (const r of doc) visit(r);
  return doc.length;
}

async function readDirectory(
  feed: AdvisoryFeedConfig,
  dir: string,
  setup: string,
  prior: Validators,
  visit: (record: unknown) => void,
): Promise<FeedRead> {
  const files: Array<{ rel: string; size: number; mtime: number }> = [];
  let bytes = 0;
  async function walk(rel: string, depth: number): Promise<void> {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(path.join(dir, rel), { withFileTypes: true });
    } catch (e) {
      throw new FeedError(
        `reading ${JSON.stringify(path.join(dir, rel))} failed: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const child = path.join(rel, e.name);
      // Links are not followed: a loop, or a way out of the folder.
      if (e.isDirectory() && depth < MAX_DEPTH) await walk(child, depth + 1);
      else if (e.isFile() && e.name.toLowerCase().endsWith('.json')) {
        const st = await fs.promises.stat(path.join(dir, child));
        if (st.size > feed.max_record_bytes)
          throw new FeedError(
            `${JSON.stringify(child)} is ${st.size} bytes, over max_record_bytes (${feed.max_record_bytes})`,
          );
        bytes += st.size;
        if (bytes > feed.max_bytes) throw new FeedError(`the folder's OSV files pass max_bytes (${feed.max_bytes})`);
        files.push({ rel: child, size: st.size, mtime: st.mtimeMs });
        if (files.length > feed.max_records)
          throw new FeedError(`the folder has more than max_records (${feed.max_records}) OSV files`);
      }
    }
  }
  await walk('', 0);
  const hash = createHash('sha256').update(`${setup}\n`);
  for (const f of files) hash.update(`${f.rel}\0${f.size}\0${f.mtime}\n`);
  const fingerprint = hash.digest('hex');
  if (prior.fingerprint === fingerprint) return { notModified: true };
  for (const f of files) {
    const doc = parse(await fs.promises.readFile(path.join(dir, f.rel)), JSON.stringify(f.rel));
    visit(doc);
  }
  return { notModified: false, records: files.length, validators: { etag: null, last_modified: null, fingerprint } };
}
