import { createHmac, randomUUID } from 'node:crypto';

export interface SignedFlagRequest {
  secret: string;
  /** The exact body of a POST; absent for DELETE. */
  body?: string;
  /** The request path, signed for DELETE. */
  path: string;
  method: 'POST' | 'DELETE';
  /** Unix seconds; default now. */
  timestamp?: number;
  /** Default a fresh UUID. */
  delivery?: string;
}

/**
 * The headers a flag source sends (decision 0014): `X-Hub-Signature-256` over `<timestamp>\n<delivery>\n`
 * followed by the base signed string (the body, or `DELETE\n<path>`).
 */
export function signFlagRequest(r: SignedFlagRequest): Record<string, string> {
  const timestamp = String(r.timestamp ?? Math.floor(Date.now() / 1000));
  const delivery = r.delivery ?? randomUUID();
  const spec = r.method === 'DELETE' ? `DELETE\n${r.path}` : (r.body ?? '');
  const signature = createHmac('sha256', r.secret).update(`${timestamp}\n${delivery}\n${spec}`).digest('hex');
  return { 'x-hub-timestamp': timestamp, 'x-hub-delivery': delivery, 'x-hub-signature-256': `sha256=${signature}` };
}
