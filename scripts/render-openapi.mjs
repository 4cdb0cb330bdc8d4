// Writes docs/openapi.json, the admin API's OpenAPI document (npm run docs), and the console's types
// generated from it; test/repo.test.ts fails when either is stale.
import fs from 'node:fs';
import { openApiReference } from '@hub/cli';
import { consoleApiTypes } from './render-console-api-types.mjs';

fs.writeFileSync(new URL('../docs/openapi.json', import.meta.url), await openApiReference());
fs.writeFileSync(
  new URL('../packages/console/web/src/admin-api.generated.ts', import.meta.url),
  await consoleApiTypes(),
);
