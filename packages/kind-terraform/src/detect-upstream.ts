import type { DetectUpstream } from '@hub/contract';

/**
 * A provider registry the terraform CLI configuration points a host at:
 * `host "<h>" { services = { "providers.v1" = "<base>/v1/providers/" } }`. A `network_mirror` is a
 * different protocol (hub serves one, it does not proxy one), so it is not taken as an upstream.
 */
export const detectUpstream: DetectUpstream = async ({ readHomeFile }) => {
  const text = await readHomeFile('.terraformrc');
  if (text === null) return null;
  const withoutComments = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*(#|\/\/).*$/gm, '');
  const services = /"providers\.v1"\s*=\s*"([^"]+)"/.exec(withoutComments)?.[1];
  return services === undefined
    ? null
    : { upstream: services.replace(/\/v1\/providers\/?$/, ''), source: '~/.terraformrc' };
};
