import type { DetectUpstream } from '@hub/contract';

/** The registry npm itself is configured with (`.npmrc`, environment, or npm's own default). */
export const detectUpstream: DetectUpstream = async ({ run }) => {
  const out = await run('npm', ['config', 'get', 'registry']);
  return out === null ? null : { upstream: out.trim(), source: 'npm config get registry' };
};
