import { readXml, type DetectUpstream } from '@hub/contract';

/** The first package source in `~/.nuget/NuGet/NuGet.Config` whose value is a v3 service index (`.../index.json`). */
export const detectUpstream: DetectUpstream = async ({ readHomeFile }) => {
  const xml = await readHomeFile('.nuget', 'NuGet', 'NuGet.Config');
  const url = xml === null ? undefined : firstServiceIndex(xml);
  return url ? { upstream: url, source: '~/.nuget/NuGet/NuGet.Config' } : null;
};

function firstServiceIndex(xml: string): string | undefined {
  let url: string | undefined;
  try {
    readXml(xml, {
      open(name, attributes) {
        const value = attributes.value?.trim();
        if (url === undefined && name === 'add' && value && /index\.json$/i.test(value)) url = value;
      },
    });
  } catch {
    return undefined;
  }
  return url;
}
