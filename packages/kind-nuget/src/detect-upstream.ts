import { SaxesParser } from 'saxes';
import type { DetectUpstream } from '@hub/runtime';

/** The first package source in `~/.nuget/NuGet/NuGet.Config` whose value is a v3 service index (`.../index.json`). */
export const detectUpstream: DetectUpstream = async ({ readHomeFile }) => {
  const xml = await readHomeFile('.nuget', 'NuGet', 'NuGet.Config');
  const url = xml === null ? undefined : firstServiceIndex(xml);
  return url ? { upstream: url, source: '~/.nuget/NuGet/NuGet.Config' } : null;
};

function firstServiceIndex(xml: string): string | undefined {
  const parser = new SaxesParser();
  let url: string | undefined;
  parser.on('doctype', () => {
    throw new Error('a DOCTYPE is not read');
  });
  parser.on('opentag', (tag) => {
    const value = tag.attributes.value;
    if (url === undefined && tag.name === 'add' && typeof value === 'string' && /index\.json$/i.test(value.trim())) url = value.trim();
  });
  try {
    parser.write(xml).close();
  } catch {
    return undefined;
  }
  return url;
}
