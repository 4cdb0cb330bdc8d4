/**
 * @hub/upstream: how hub talks to upstream registries. A library with no server and no database, so
 * the runtime, benches and third parties share one client whose defences are tested in one place.
 */
export { createUpstreamClient, redactUrl, type UpstreamClientOptions } from './client.js';
export {
  createMirroredClient,
  type BreakerOptions,
  type BreakerState,
  type Mirror,
  type MirrorStatus,
  type MirroredClient,
  type MirroredClientOptions,
} from './mirrors.js';
export { DEFAULT_FORBIDDEN_CIDRS, forbiddenAddressMatcher } from './address-policy.js';
export {
  canonicalIp,
  createAddressMatcher,
  embeddedIpv4,
  formatCidr,
  parseCidr,
  parseIp,
  rangeContains,
  type Ip,
  type IpRange,
} from './ip-ranges.js';
export { createNetworkDispatcher, type NetworkDispatcher, type NetworkOptions } from './network.js';
export { proxyFor, proxySettingsFromEnv, splitNoProxy, type ProxySettings } from './proxy-route.js';
export { caOption, splitPem, type UpstreamTls } from './tls-trust.js';
