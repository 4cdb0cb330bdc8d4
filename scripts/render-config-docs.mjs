// Writes docs/config.md from the configuration schemas, and the permissions and roles of docs/security.md
// from @hub/contract (npm run docs); test/repo.test.ts fails when either is stale.
import fs from 'node:fs';
import { configReference, withAccessDocs } from '@hub/cli';

fs.writeFileSync(new URL('../docs/config.md', import.meta.url), await configReference());
const security = new URL('../docs/security.md', import.meta.url);
fs.writeFileSync(security, withAccessDocs(fs.readFileSync(security, 'utf8')));
