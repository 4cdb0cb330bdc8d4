export { default as openvsx } from './kinds/openvsx.js';
export { default as vscode_marketplace } from './kinds/vscode-marketplace.js';
