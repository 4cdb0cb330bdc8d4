// Writes docs/config.md from the configuration schemas (npm run docs); test/docs.test.ts fails when it is stale.
import fs from 'node:fs';
import { configReference } from '@hub/cli';

fs.writeFileSync(new URL('../docs/config.md', import.meta.url), await configReference());
