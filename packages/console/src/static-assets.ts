import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** One built file of the SPA, read once at setup: the bundle is small and never changes while hub runs. */
export interface Asset {
  body: Buffer;
  type: string;
  /** Hashed file names change with their content: cached for a year. index.html is revalidated. */
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

/** Where `vite build` writes the SPA (packages/console/dist/web). */
export const WEB_DIR = fileURLToPath(new URL('../web/', import.meta.url));

/** The built SPA by URL path below /console/ ("index.html", "assets/index-3f2a1c.js"); empty when not built. */
export function loadAssets(dir = WEB_DIR): Map<string, Asset> {
  const out = new Map<string, Asset>();
  if (!fs.existsSync(path.join(dir, 'index.html'))) return out;
  const walk = (sub: string) => {
    for (const e of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${e.name}` : e.name;
      if (e.isDirectory()) walk(rel);
      else if (e.isFile()) {
        const type = TYPES[path.extname(e.name)] ?? 'application/octet-stream';
        out.set(rel, { body: fs.readFileSync(path.join(dir, rel)), type, immutable: rel.startsWith('assets/') });
      }
    }
  };
  walk('');
  return out;
}
