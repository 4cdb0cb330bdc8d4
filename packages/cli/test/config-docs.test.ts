import t from 'tap';
import Type from 'typebox';
import { secretPair, type ConfigSection } from '@hub/runtime';
import webhooks from '@hub/webhooks';
import { renderConfigDocs } from '../src/config-docs.js';

const SOURCES = Type.Array(
  Type.Object(
    { name: Type.String({ description: 'A name.' }), ...secretPair('secret', 'A secret') },
    { additionalProperties: false, description: 'A source.' },
  ),
  { default: [], description: 'Sources.' },
);
const SOURCES_LIKE: ConfigSection<typeof SOURCES> = { section: 'flag_sources', schema: SOURCES };

t.test('renderConfigDocs: a table per section and a section per kind schema', async (tt) => {
  const kind = Type.Object(
    { checksum_db: Type.Optional(Type.String({ description: 'Checksum database | base' })) },
    { additionalProperties: false },
  );
  const md = renderConfigDocs(new Map([['go', kind]]), [
    SOURCES_LIKE,
    webhooks.config!,
    {
      section: 'sweeps',
      schema: Type.Object(
        { interval_secs: Type.Integer({ default: 21600, minimum: 300, description: 'Seconds.' }) },
        { description: 'A plugin.' },
      ),
    },
  ]);
  for (const title of [
    '[server]',
    '[database]',
    '[storage]',
    '[auth]',
    '[[auth.policies]]',
    '[limits]',
    '[cache]',
    '[sweeps]',
    '[[flag_sources]]',
    '[notifications]',
    '[[notifications.webhooks]]',
    '[metrics]',
    '[plugins]',
    '[[registries]]',
    '[registries.upstream_auth]',
    '[registries.security]',
  ]) {
    tt.match(md, `\`${title}\`\n`, `section ${title}`);
  }
  tt.match(md, '| `listen` | string | `"127.0.0.1:8080"` |');
  tt.match(md, '| `mode` | `"proxy"` \\| `"hybrid"` \\| `"local"` \\| `"group"` | `"proxy"` |');
  tt.match(md, '| `interval_secs` | integer, ≥ 300 | `21600` |');
  tt.match(md, '| `name` | string | **required** |');
  tt.match(md, 'Kind `go`: extra [[registries]] keys');
  tt.match(md, 'Checksum database \\| base', 'pipes escaped in cells');
  tt.equal(renderConfigDocs(), renderConfigDocs(new Map()), 'deterministic');
});
