// Exports carry explicit types: a type tsc must name in a declaration makes it resolve every package in
// package.json, @hub/admin and @hub/flags included, before `tsc -b` has built them (a fresh clone fails).
export * from './test-hub.js';
export * from './fixture-upstream.js';
export * from './tls.js';
export * from './npm-fixture.js';
export * from './go-fixture.js';
export * from './raw-request.js';
export * from './mysql.js';
export * from './flag-signing.js';
export * from './kind-conformance.js';
export * from './zip-decoy.js';
export { makeZip } from './zip-archive.js';
export { makeTar } from './tar-archive.js';
export * from './csv.js';
export * from './npm-client.js';
export * from './clients.js';
export { filesKind } from './files-kind.js';
export { pluginConfigLoader } from './plugin-config.js';
export { startForwardProxy, type ForwardProxy, type ForwardProxyOptions } from './forward-proxy.js';
export { startTinyproxy, tinyproxyPath, type Tinyproxy } from './tinyproxy.js';
export { mergeContext, groupPart, tableAsk, type MergeContext, type MergeContextOptions } from './group-merge.js';
export {
  KEPT_AUDIT_CONFIG,
  sweepUpstream,
  disappearedVersions,
  revalidatePackage,
  type SweepAnswer,
  type RevalidateAnswer,
} from './kept-audit.js';
