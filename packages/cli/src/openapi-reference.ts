import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openApiDocument } from '@hub/admin';
import { createHub, VERSION } from '@hub/runtime';
import { createLogger } from '@hub/runtime/internal';
import { defaultPlugins } from './plugins.js';

/**
 * docs/openapi.json: the admin API's OpenAPI document of the default distribution, as a hub with every
 * default plugin serves it at /api/v1/openapi.json: @hub/admin's builder on the routes that hub's plugins
 * mounted (a throw-away hub on a temporary SQLite file; it never listens).
 */
export async function openApiReference(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-openapi-'));
  try {
    const configText = `[database]\nclient = "sqlite"\nfilename = ${JSON.stringify(path.join(dir, 'hub.db'))}\n\n[storage]\nkind = "fs"\npath = ${JSON.stringify(path.join(dir, 'blobs'))}\n`;
    const hub = await createHub({
      plugins: await defaultPlugins(),
      configText,
      env: { HUB_ADMIN_TOKEN: crypto.randomBytes(24).toString('hex') },
      logger: createLogger({ level: 'silent' }),
      print: () => {},
    });
    try {
      return `${JSON.stringify(openApiDocument(hub.adminRoutes.routes(), VERSION), null, 2)}\n`;
    } finally {
      await hub.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
