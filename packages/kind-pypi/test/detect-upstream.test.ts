import t from 'tap';
import { detectUpstream, fromConfigList, indexUrlOfIni } from '../src/detect-upstream.js';

const machine = (o: { pip?: string | null; files?: Record<string, string> }) => ({
  run: async (cmd: string) => (cmd === 'pip' ? (o.pip ?? null) : null),
  readHomeFile: async (...s: string[]) => o.files?.[s.join('/')] ?? null,
});

t.test('pip config list: PIP_INDEX_URL (:env:) wins over pip.conf', async (t) => {
  const out =
    "global.index-url='https://mirror.example/simple'\n:env:.index-url='https://env.example/simple'\nglobal.timeout='60'\n";
  t.same(await detectUpstream(machine({ pip: out })), {
    upstream: 'https://env.example/simple',
    source: 'PIP_INDEX_URL (pip config list)',
  });
  t.same(await detectUpstream(machine({ pip: "global.index-url='https://mirror.example/simple'\n" })), {
    upstream: 'https://mirror.example/simple',
    source: 'pip config list',
  });
  t.equal(fromConfigList("global.index-url='file:///x'\n"), null, 'not http(s)');
});

t.test('without pip on the PATH: the pip.conf files', async (t) => {
  const conf =
    '# mine\n[install]\nindex-url = https://install.example/simple\n[global]\nindex-url = https://global.example/simple\ntimeout = 5\n';
  t.same(await detectUpstream(machine({ files: { '.config/pip/pip.conf': conf } })), {
    upstream: 'https://global.example/simple',
    source: '~/.config/pip/pip.conf',
  });
  t.same(
    await detectUpstream(
      machine({ files: { '.pip/pip.conf': '[install]\nindex_url: https://install.example/simple\n' } }),
    ),
    { upstream: 'https://install.example/simple', source: '~/.pip/pip.conf' },
  );
  t.equal(indexUrlOfIni('[global]\nextra-index-url = https://x.example/\n'), null, 'extra-index-url is not the index');
  t.equal(await detectUpstream(machine({ pip: '' })), null, 'nothing configured');
});
