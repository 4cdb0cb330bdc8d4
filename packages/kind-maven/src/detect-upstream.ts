import { SaxesParser } from 'saxes';
import type { DetectUpstream } from '@hub/runtime';

/** The first `<mirror>`'s `<url>` in `~/.m2/settings.xml`. */
export const detectUpstream: DetectUpstream = async ({ readHomeFile }) => {
  const xml = await readHomeFile('.m2', 'settings.xml');
  const url = xml === null ? undefined : firstMirrorUrl(xml);
  return url ? { upstream: url, source: '~/.m2/settings.xml' } : null;
};

function firstMirrorUrl(xml: string): string | undefined {
  const parser = new SaxesParser();
  const path: string[] = [];
  let url: string | undefined;
  let text = '';
  parser.on('doctype', () => {
    throw new Error('a DOCTYPE is not read');
  });
  parser.on('opentag', (tag) => {
    path.push(tag.name);
    text = '';
  });
  parser.on('text', (t) => (text += t));
  parser.on('closetag', (tag) => {
    if (url === undefined && tag.name === 'url' && path.at(-2) === 'mirror') url = text.trim();
    path.pop();
  });
  try {
    parser.write(xml).close();
  } catch {
    return undefined;
  }
  return url;
}
