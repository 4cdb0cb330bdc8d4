// Writes docs/openapi.json, the admin API's OpenAPI document (npm run docs); test/repo.test.ts fails when it is stale.
import fs from 'node:fs';
import { openApiReference } from '@hub/cli';

fs.writeFileSync(new URL('../docs/openapi.json', import.meta.url), await openApiReference());
