import type { DetectUpstream } from '@hub/contract';

/** GOPROXY is a list separated by `,` or `|`; `direct` and `off` are not proxies. */
export const detectUpstream: DetectUpstream = async ({ run }) => {
  const out = await run('go', ['env', 'GOPROXY']);
  const first = (out ?? '')
    .split(/[,|]/)
    .map((s) => s.trim())
    .find((s) => /^https?:\/\//i.test(s));
  return first === undefined ? null : { upstream: first, source: 'go env GOPROXY' };
};
