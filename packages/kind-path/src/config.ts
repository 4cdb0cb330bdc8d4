import Type from 'typebox';
import { globToRegExp } from './classify.js';

/** Extra [[registries]] keys of every path-addressed kind. */
export const configSchema = Type.Object(
  {
    index_paths: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 512 }), {
        maxItems: 100,
        description:
          'More index-like (mutable) paths besides the kind\'s own, as globs over the upstream path: `*` within a segment, `**` across segments, e.g. "**/updatePlugins.xml". They are revalidated after metadata_ttl_secs and left out of the audit.',
      }),
    ),
  },
  { additionalProperties: false },
);

export interface PathConfig {
  index_paths?: string[];
}

const compiled = new WeakMap<object, RegExp[]>();

/** The registry's own index patterns, compiled once per config object. */
export function indexPatterns(cfg: PathConfig | undefined): RegExp[] {
  if (!cfg?.index_paths?.length) return [];
  let res = compiled.get(cfg);
  if (!res) compiled.set(cfg, (res = cfg.index_paths.map(globToRegExp)));
  return res;
}
