import { execFileSync } from 'node:child_process';
import zlib from 'node:zlib';
import t from 'tap';
import { decode, encode, MSym, type MValue } from '../src/marshal.js';
import { decodeSpecs, filterSpecs, MAX_SPECS_ENTRIES, specsEntries } from '../src/specs.js';
import { fixture } from './setup.js';

const listed = (gz: Buffer) => specsEntries(decodeSpecs(gz)!).map((e) => `${e.name} ${e.token}`);

t.test("decodes the specs indexes Ruby's Marshal wrote (symbol and object links included)", async (t) => {
  t.same(listed(fixture('upstream/specs.4.8.gz')), [
    'hubdemo 1.0.0',
    'hubdemo 1.1.0',
    'hubdep 1.0.0',
    'hubmac 1.0-x86_64-darwin-19',
  ]);
  t.same(listed(fixture('upstream/latest_specs.4.8.gz')), [
    'hubdemo 1.1.0',
    'hubdep 1.0.0',
    'hubmac 1.0-x86_64-darwin-19',
  ]);
  t.same(listed(fixture('upstream/prerelease_specs.4.8.gz')), []);
  const raw = zlib.gunzipSync(fixture('upstream/specs.4.8.gz'));
  t.ok(raw.includes(Buffer.from([0x40])), 'the fixture does use object links (@)');
  const again = decode(encode(decode(raw)));
  t.same(again, decode(raw), 'encode then decode gives the same values');
});

t.test('filtering drops exactly the unlisted entries', async (t) => {
  const gz = fixture('upstream/specs.4.8.gz');
  const items = decodeSpecs(gz)!;
  t.equal(filterSpecs(gz, items, new Map()), gz, 'nothing unlisted: the same bytes');
  t.equal(
    filterSpecs(gz, items, new Map([['hubdemo', new Set(['7.0.0'])]])),
    gz,
    'unlisted versions that are not there: the same bytes',
  );
  const out = filterSpecs(
    gz,
    items,
    new Map([
      ['hubdemo', new Set(['1.0.0'])],
      ['hubmac', new Set(['1.0'])],
    ]),
  );
  t.same(listed(out), ['hubdemo 1.1.0', 'hubdep 1.0.0']);
});

t.test('Ruby reads what hub writes', { skip: hasRuby() }, async (t) => {
  const gz = fixture('upstream/specs.4.8.gz');
  const out = filterSpecs(gz, decodeSpecs(gz)!, new Map([['hubdemo', new Set(['1.0.0'])]]));
  const script =
    'require "rubygems"; require "zlib"; Marshal.load(Zlib.gunzip(STDIN.read)).each { |n, v, p| puts [n, v.class, v, p].join(" ") }';
  const ruby = execFileSync('ruby', ['-e', script], { input: out }).toString();
  t.equal(
    ruby,
    'hubdemo Gem::Version 1.1.0 ruby\nhubdep Gem::Version 1.0.0 ruby\nhubmac Gem::Version 1.0 x86_64-darwin-19\n',
  );
  const all = execFileSync(
    'ruby',
    ['-e', 'require "zlib"; v = Marshal.load(Zlib.gunzip(STDIN.read)); print Marshal.dump(v)'],
    { input: zlib.gzipSync(encode({ t: 'array', items: longs.map((n) => n) })) },
  );
  t.same(decode(all), { t: 'array', items: longs }, 'integers round-trip through Ruby');
});

const longs = [0, 1, -1, 122, 123, 255, 256, -123, -124, -256, -257, 65535, 65536, 2 ** 30 - 1, -(2 ** 30)];

t.test('integers of every width round-trip', async (t) => {
  t.same(decode(encode({ t: 'array', items: longs })), { t: 'array', items: longs });
  const sym = new MSym(Buffer.from('E'));
  const v: MValue = {
    t: 'array',
    items: [
      sym,
      sym,
      { t: 'string', bytes: Buffer.from('x'), ivars: [[sym, true]] },
      { t: 'hash', pairs: [[1, null]], def: false },
    ],
  };
  t.same(decode(encode(v)), v, 'symbols, ivars, hashes with a default');
});

t.test('hostile Marshal data is refused, not trusted', async (t) => {
  const bad: Array<[string, number[]]> = [
    ['wrong version', [4, 9, 0x30]],
    ['truncated', [4, 8, 0x5b, 0x07, 0x30]],
    ['a count past the end', [4, 8, 0x5b, 0x04, 0xff, 0xff, 0xff, 0x7f]],
    ['a string past the end', [4, 8, 0x22, 0x7f, 0x61]],
    ['a link to nothing', [4, 8, 0x5b, 0x06, 0x40, 0x10]],
    ['a symbol link to nothing', [4, 8, 0x3b, 0x00]],
    ['an unsupported type', [4, 8, 0x63, 0x06, 0x41]],
    ['ivars on an integer', [4, 8, 0x49, 0x69, 0x06, 0x00]],
    ['trailing bytes', [4, 8, 0x30, 0x30]],
    ['nesting too deep', [4, 8, ...Array(100).fill([0x5b, 0x06]).flat(), 0x30]],
  ];
  for (const [what, bytes] of bad) t.throws(() => decode(Buffer.from(bytes)), { name: 'MarshalError' }, what);
  const cyclic: { t: 'array'; items: MValue[] } = { t: 'array', items: [] };
  cyclic.items.push(cyclic);
  t.throws(() => encode(cyclic), { name: 'MarshalError' }, 'a cycle is refused when encoding');
  t.throws(() => decodeSpecs(zlib.gzipSync(Buffer.from([4, 8, 0x30]))), /not a Marshal array/);
});

t.test('a specs index with too many entries is left undecoded', async (t) => {
  const n = MAX_SPECS_ENTRIES + 1;
  const head = Buffer.from([4, 8, 0x5b, 0x03, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff]);
  t.equal(decodeSpecs(zlib.gzipSync(Buffer.concat([head, Buffer.alloc(n, 0x30)]))), null);
});

function hasRuby(): string | false {
  try {
    execFileSync('ruby', ['--version'], { stdio: 'ignore' });
    return false;
  } catch {
    return 'ruby is missing (apt-get install -y ruby)';
  }
}
