export { default as github } from './kinds/github.js';
export { default as gitlab } from './kinds/gitlab.js';
export { default as forgejo } from './kinds/forgejo.js';
export { FORGES, type Forge, type ForgeAsset, type AssetRoute } from './forges.js';
export { forgeKind } from './kind.js';
