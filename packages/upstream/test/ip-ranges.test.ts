import t from 'tap';
import { canonicalIp, createAddressMatcher, parseIp } from '../src/ip-ranges.js';

t.test('only standard literals are addresses: the legacy forms ipaddr.js would take are refused', async (t) => {
  for (const legacy of ['127.1', '0x7f.0.0.1', '0177.0.0.1', '010.0.0.1', '2130706433', '1.2.3.4.5', '::ffff:127.1']) {
    t.equal(parseIp(legacy), undefined, legacy);
    t.ok(createAddressMatcher(['203.0.113.0/24'])(legacy), `${legacy} fails closed against a forbidden list`);
  }
  t.equal(canonicalIp('[fe80::1%eth0]'), 'fe80::1', 'URL brackets and the zone id are dropped');
  t.equal(canonicalIp('::FFFF:7F00:1'), '127.0.0.1', 'hex IPv4-mapped is IPv4');
  t.equal(canonicalIp('2001:db8:0:0:1:0:0:1'), '2001:db8::1:0:0:1', 'RFC 5952: the first longest zero run');
});
