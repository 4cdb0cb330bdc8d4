import t from 'tap';
import { DEFAULT_FORBIDDEN_CIDRS, forbiddenAddressMatcher } from '../src/address-policy.js';
import { canonicalIp, createAddressMatcher, embeddedIpv4, parseIp } from '../src/ip-ranges.js';

t.test('only standard literals are addresses: the legacy forms ipaddr.js would take are refused', async (t) => {
  for (const legacy of ['127.1', '0x7f.0.0.1', '0177.0.0.1', '010.0.0.1', '2130706433', '1.2.3.4.5', '::ffff:127.1']) {
    t.equal(parseIp(legacy), undefined, legacy);
    t.ok(createAddressMatcher(['203.0.113.0/24'])(legacy), `${legacy} fails closed against a forbidden list`);
  }
  t.equal(canonicalIp('[fe80::1%eth0]'), 'fe80::1', 'URL brackets and the zone id are dropped');
  t.equal(canonicalIp('::FFFF:7F00:1'), '127.0.0.1', 'hex IPv4-mapped is IPv4');
  t.equal(canonicalIp('2001:db8:0:0:1:0:0:1'), '2001:db8::1:0:0:1', 'RFC 5952: the first longest zero run');
});

t.test(
  'IPv6 prefixes that reach IPv4 (issue 26): 6to4 and NAT64 judged by the IPv4 they embed, Teredo and local NAT64 forbidden whole',
  async (t) => {
    const forbidden = forbiddenAddressMatcher(DEFAULT_FORBIDDEN_CIDRS);
    const v4 = (a: string) => embeddedIpv4(parseIp(a)!)?.toString();
    t.equal(v4('2002:7f00:1::'), '127.0.0.1', '6to4: bits 16-48');
    t.equal(v4('2002:a9fe:a9fe:1::5'), '169.254.169.254');
    t.equal(v4('64:ff9b::7f00:1'), '127.0.0.1', 'NAT64 well-known: the last 32 bits');
    t.equal(v4('64:ff9b::10.1.2.3'), '10.1.2.3', 'the dotted spelling too');
    t.equal(v4('2001:db8::1'), undefined, 'other IPv6 embeds nothing');
    t.equal(v4('8.8.8.8'), undefined);
    for (const a of [
      '2002:7f00:1::',
      '2002:7f00:0001:ffff::1',
      '2002:a9fe:a9fe::',
      '2002:0a00:0001::',
      '2002:c0a8:0101::1',
      '2002::',
      '64:ff9b::127.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::10.0.0.1',
      '64:ff9b:1::8.8.8.8',
      '64:ff9b:1:ffff::1',
      '2001::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    ]) {
      t.ok(forbidden(a), `${a} is forbidden`);
    }
    for (const a of [
      '2002:0808:0808::1',
      '64:ff9b::8.8.8.8',
      '64:ff9b::808:808',
      '2001:db8::1',
      '2001:1::1',
      '2003::1',
    ]) {
      t.notOk(forbidden(a), `${a} reaches the public internet`);
    }
    t.ok(
      forbiddenAddressMatcher(['203.0.113.0/24'])('2002:cb00:7107::'),
      'a configured list is applied to the embedded address too',
    );
    t.notOk(
      createAddressMatcher(['10.0.0.0/8'])('2002:0a00:0001::'),
      'lists that trust (trusted proxies) never widen to embedded addresses',
    );
  },
);
