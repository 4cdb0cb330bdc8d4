export * from './test-hub.js';
export * from './fixture-upstream.js';
export * from './tls.js';
export * from './npm-fixture.js';
export * from './go-fixture.js';
export * from './raw-request.js';
export * from './mysql.js';
export * from './flag-signing.js';
