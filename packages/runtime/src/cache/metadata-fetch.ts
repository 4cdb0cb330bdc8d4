import {
  errors,
  type HubError,
  isHubError,
  type MetadataSpec,
  readCapped,
  type UpstreamClient,
  type UpstreamResponse,
} from '@hub/contract';

/** An upstream answer to a metadata request: its response (and a 200's body, and why it failed the kind's check), or why it failed. */
export type Fetched = { res: UpstreamResponse; body?: Buffer; why?: string } | { failed: HubError };

/**
 * Asks the upstream for one document and reads a 200's body within `max` bytes. A document that fails (its body,
 * or the kind's check) is asked of the next upstream mirror when there is one.
 */
export async function fetchDocument(
  upstream: UpstreamClient,
  spec: MetadataSpec,
  headers: Record<string, string>,
  max: number,
): Promise<Fetched> {
  let res: UpstreamResponse;
  try {
    res = await upstream.request(spec.url, { headers, maxBytes: max });
    for (;;) {
      if (res.status !== 200) return { res };
      let body: Buffer;
      try {
        body = await readCapped(res.body, max, () => errors.upstream(`upstream document exceeds ${max} bytes`));
      } catch (e) {
        if (!res.tryNextMirror) return { failed: isHubError(e) ? e : errors.upstream('upstream body failed') };
        res = await res.tryNextMirror((e as Error).message);
        continue;
      }
      const why = spec.check?.(body, res.headers['content-type']) ?? null;
      if (why === null) return { res, body };
      if (!res.tryNextMirror) return { res, body, why };
      res = await res.tryNextMirror(`invalid document: ${why}`);
    }
  } catch (e) {
    return { failed: isHubError(e) ? e : errors.upstream('upstream request failed') };
  }
}
