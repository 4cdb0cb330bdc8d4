import { readXml, type DetectUpstream } from '@hub/contract';

/** The first `<mirror>`'s `<url>` in `~/.m2/settings.xml`. */
export const detectUpstream: DetectUpstream = async ({ readHomeFile }) => {
  const xml = await readHomeFile('.m2', 'settings.xml');
  const url = xml === null ? undefined : firstMirrorUrl(xml);
  return url ? { upstream: url, source: '~/.m2/settings.xml' } : null;
};

function firstMirrorUrl(xml: string): string | undefined {
  const path: string[] = [];
  let url: string | undefined;
  let text = '';
  try {
    readXml(xml, {
      open(name) {
        path.push(name);
        text = '';
      },
      text: (t) => (text += t),
      close(name) {
        if (url === undefined && name === 'url' && path.at(-2) === 'mirror') url = text.trim();
        path.pop();
      },
    });
  } catch {
    return undefined;
  }
  return url;
}
