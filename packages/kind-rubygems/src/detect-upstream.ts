import type { DetectUpstream } from '@hub/contract';

/** `gem sources --list` prints a `*** CURRENT SOURCES ***` banner, then one URL per line. */
export const detectUpstream: DetectUpstream = async ({ run }) => {
  const out = await run('gem', ['sources', '--list']);
  const first = (out ?? '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => /^https?:\/\//i.test(l));
  return first === undefined ? null : { upstream: first, source: 'gem sources --list' };
};
