/**
 * Ruby's Marshal format 4.8, the subset RubyGems' specs indexes use (arrays, strings with encoding
 * ivars, symbols, user-marshalled Gem::Version, plain objects, hashes, fixnums, floats, bignums), so
 * unlisted versions can be dropped from `specs.4.8.gz`. Written for hostile input: depth, element
 * counts and lengths are checked against what is left, and anything else is refused.
 *
 * Encoding writes each value in full (no object links), which Marshal.load reads back the same.
 */
export class MSym {
  constructor(
    readonly bytes: Buffer,
    public ivars?: Ivar[],
  ) {}
  get name(): string {
    return this.bytes.toString('utf8');
  }
}
export type Ivar = [MSym, MValue];
export type MValue =
  | null
  | boolean
  | number
  | MSym
  | { t: 'string'; bytes: Buffer; ivars?: Ivar[] }
  | { t: 'array'; items: MValue[]; ivars?: Ivar[] }
  | { t: 'hash'; pairs: [MValue, MValue][]; def?: MValue; ivars?: Ivar[] }
  | { t: 'object'; cls: MSym; ivars: Ivar[] }
  | { t: 'struct'; cls: MSym; members: Ivar[] }
  | { t: 'userMarshal'; cls: MSym; data: MValue; ivars?: Ivar[] }
  | { t: 'userDef'; cls: MSym; bytes: Buffer; ivars?: Ivar[] }
  | { t: 'float'; bytes: Buffer }
  | { t: 'bignum'; sign: number; bytes: Buffer };

type WithIvars = Extract<MValue, { ivars?: Ivar[] }>;

const MAX_DEPTH = 64;

export class MarshalError extends Error {
  override name = 'MarshalError';
}

export function decode(buf: Buffer): MValue {
  let pos = 0;
  const symbols: MSym[] = [];
  const objects: MValue[] = [];
  const fail = (why: string): never => {
    throw new MarshalError(`Marshal data ${why} at byte ${pos}`);
  };
  const byte = (): number => (pos < buf.length ? buf[pos++]! : fail('ends early'));
  const long = (): number => {
    const c = (byte() << 24) >> 24;
    if (c === 0) return 0;
    if (c > 4) return c - 5;
    if (c < -4) return c + 5;
    let x = c > 0 ? 0 : -1;
    for (let i = 0; i < Math.abs(c); i++) {
      const b = byte();
      x = c > 0 ? x + b * 2 ** (8 * i) : x - (0xff - b) * 2 ** (8 * i);
    }
    return x;
  };
  const count = (): number => {
    const n = long();
    return n >= 0 && n <= buf.length - pos ? n : fail(`has an impossible count ${n}`);
  };
  const bytes = (): Buffer => {
    const n = count();
    pos += n;
    return buf.subarray(pos - n, pos);
  };
  const symbol = (): MSym => {
    const c = byte();
    if (c === 0x3b) return symbols[long()] ?? fail('links to an unknown symbol');
    if (c === 0x3a) {
      const s = new MSym(bytes());
      symbols.push(s);
      return s;
    }
    if (c === 0x49 && buf[pos] === 0x3a) {
      pos++;
      const s = new MSym(bytes());
      symbols.push(s);
      s.ivars = ivars(0);
      return s;
    }
    return fail('has no symbol where one is needed');
  };
  const ivars = (depth: number): Ivar[] => {
    const n = count();
    const out: Ivar[] = [];
    for (let i = 0; i < n; i++) out.push([symbol(), value(depth + 1)]);
    return out;
  };
  const entry = <T extends MValue>(v: T): T => {
    objects.push(v);
    return v;
  };
  const value = (depth: number): MValue => {
    if (depth > MAX_DEPTH) fail('nests too deeply');
    const c = byte();
    switch (String.fromCharCode(c)) {
      case '0':
        return null;
      case 'T':
        return true;
      case 'F':
        return false;
      case 'i':
        return long();
      case ':':
      case ';':
        pos--;
        return symbol();
      case '@': {
        const i = long();
        return i >= 0 && i < objects.length ? objects[i]! : fail('links to an unknown object');
      }
      case 'I': {
        if (buf[pos] === 0x3a) {
          pos--;
          return symbol();
        }
        const v = value(depth + 1);
        if (
          v === null ||
          typeof v !== 'object' ||
          v instanceof MSym ||
          !('t' in v) ||
          v.t === 'object' ||
          v.t === 'struct' ||
          v.t === 'float' ||
          v.t === 'bignum'
        )
          return fail('has instance variables on a value that cannot carry them');
        (v as WithIvars).ivars = ivars(depth);
        return v;
      }
      case '"':
        return entry({ t: 'string', bytes: bytes() });
      case '[': {
        const a = entry({ t: 'array' as const, items: [] as MValue[] });
        const n = count();
        for (let i = 0; i < n; i++) a.items.push(value(depth + 1));
        return a;
      }
      case '{':
      case '}': {
        const h = entry({ t: 'hash' as const, pairs: [] as [MValue, MValue][] } as Extract<MValue, { t: 'hash' }>);
        const n = count();
        for (let i = 0; i < n; i++) h.pairs.push([value(depth + 1), value(depth + 1)]);
        if (c === 0x7d) h.def = value(depth + 1);
        return h;
      }
      case 'o': {
        const o = entry({ t: 'object' as const, cls: symbol(), ivars: [] as Ivar[] });
        o.ivars = ivars(depth);
        return o;
      }
      case 'S': {
        const s = entry({ t: 'struct' as const, cls: symbol(), members: [] as Ivar[] });
        s.members = ivars(depth);
        return s;
      }
      case 'U': {
        const u = entry({ t: 'userMarshal' as const, cls: symbol(), data: null as MValue });
        u.data = value(depth + 1);
        return u;
      }
      case 'u': {
        const cls = symbol();
        return entry({ t: 'userDef', cls, bytes: bytes() });
      }
      case 'f':
        return entry({ t: 'float', bytes: bytes() });
      case 'l': {
        const sign = byte();
        const n = count() * 2;
        if (n > buf.length - pos) fail('has a bignum longer than the data');
        pos += n;
        return entry({ t: 'bignum', sign, bytes: buf.subarray(pos - n, pos) });
      }
      default:
        return fail(`has the unsupported type byte 0x${c.toString(16)}`);
    }
  };
  if (byte() !== 4 || byte() !== 8) fail('is not version 4.8');
  const root = value(0);
  if (pos !== buf.length) fail('has trailing bytes');
  return root;
}

export function encode(root: MValue): Buffer {
  const out: Buffer[] = [Buffer.from([4, 8])];
  const symbols = new Map<string, number>();
  const put = (...b: number[]): void => void out.push(Buffer.from(b));
  const long = (n: number) => {
    if (n === 0) return put(0);
    if (n > 0 && n < 123) return put(n + 5);
    if (n < 0 && n > -124) return put((n - 5) & 0xff);
    const b: number[] = [];
    let x = n;
    for (let i = 1; i <= 4; i++) {
      b.push(((x % 256) + 256) % 256);
      x = Math.floor(x / 256);
      if (x === 0 || x === -1) return put(x === 0 ? i : 256 - i, ...b);
    }
    throw new MarshalError(`${n} does not fit a Marshal long`);
  };
  const bytes = (b: Buffer) => {
    long(b.length);
    out.push(b);
  };
  const symbol = (s: MSym) => {
    const key = s.bytes.toString('latin1');
    const known = symbols.get(key);
    if (known !== undefined) {
      put(0x3b);
      return long(known);
    }
    symbols.set(key, symbols.size);
    if (s.ivars?.length) put(0x49);
    put(0x3a);
    bytes(s.bytes);
    if (s.ivars?.length) ivars(s.ivars, 0);
  };
  const ivars = (list: Ivar[], depth: number) => {
    long(list.length);
    for (const [k, v] of list) {
      symbol(k);
      value(v, depth + 1);
    }
  };
  const value = (v: MValue, depth: number): void => {
    if (depth > MAX_DEPTH) throw new MarshalError('value nests too deeply (or is cyclic)');
    if (v === null) return put(0x30);
    if (v === true) return put(0x54);
    if (v === false) return put(0x46);
    if (typeof v === 'number') {
      put(0x69);
      return long(v);
    }
    if (v instanceof MSym) return symbol(v);
    const iv = 'ivars' in v && v.t !== 'object' && v.ivars?.length ? v.ivars : undefined;
    if (iv) put(0x49);
    switch (v.t) {
      case 'string':
        put(0x22);
        bytes(v.bytes);
        break;
      case 'array':
        put(0x5b);
        long(v.items.length);
        for (const x of v.items) value(x, depth + 1);
        break;
      case 'hash':
        put(v.def === undefined ? 0x7b : 0x7d);
        long(v.pairs.length);
        for (const [k, x] of v.pairs) {
          value(k, depth + 1);
          value(x, depth + 1);
        }
        if (v.def !== undefined) value(v.def, depth + 1);
        break;
      case 'object':
        put(0x6f);
        symbol(v.cls);
        ivars(v.ivars, depth);
        break;
      case 'struct':
        put(0x53);
        symbol(v.cls);
        ivars(v.members, depth);
        break;
      case 'userMarshal':
        put(0x55);
        symbol(v.cls);
        value(v.data, depth + 1);
        break;
      case 'userDef':
        put(0x75);
        symbol(v.cls);
        bytes(v.bytes);
        break;
      case 'float':
        put(0x66);
        bytes(v.bytes);
        break;
      case 'bignum':
        put(0x6c, v.sign);
        long(v.bytes.length / 2);
        out.push(v.bytes);
        break;
    }
    if (iv) ivars(iv, depth);
  };
  value(root, 0);
  return Buffer.concat(out);
}
