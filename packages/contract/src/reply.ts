import type { ProbeAnswer, Reply } from './kind.js';

/** Small builders for the replies kinds return. */
export const reply = {
  json(value: unknown, status = 200, headers: Record<string, string> = {}): Reply {
    return {
      status,
      headers: { 'content-type': 'application/json', ...headers },
      body: Buffer.from(JSON.stringify(value)),
    };
  },
  bytes(body: Buffer | string, contentType: string, headers: Record<string, string> = {}, status = 200): Reply {
    return { status, headers: { 'content-type': contentType, ...headers }, body };
  },
};

/** The usual reading of an upstream status for the probe ladder: only 404/410 mean absent. */
export function probeAnswer(status: number): Exclude<ProbeAnswer, 'not_audited'> {
  if (status >= 200 && status < 300) return 'present';
  if (status === 404 || status === 410) return 'absent';
  return 'inconclusive';
}
