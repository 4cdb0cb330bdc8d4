import t from 'tap';
import { matchesPrefixPattern } from '../src/nosumdb.js';

t.test('GONOSUMDB patterns match leading path elements, a glob per element', async (t) => {
  t.ok(matchesPrefixPattern(['corp.example'], 'corp.example/lib'), 'a host covers its modules');
  t.ok(matchesPrefixPattern(['corp.example'], 'corp.example'));
  t.ok(matchesPrefixPattern(['*.corp.example'], 'git.corp.example/team/lib'));
  t.ok(matchesPrefixPattern(['example.com/*/demo'], 'example.com/Hub/demo/v2'));
  t.ok(
    matchesPrefixPattern(['other.example', 'corp.example/x?z/'], 'corp.example/xyz/lib'),
    'any pattern; a trailing slash is ignored',
  );
  t.notOk(
    matchesPrefixPattern(['corp.example'], 'corp.example.evil/lib'),
    'a pattern never matches part of an element',
  );
  t.notOk(matchesPrefixPattern(['*.corp.example'], 'corp.example/lib'));
  t.notOk(matchesPrefixPattern(['corp.example/lib/more'], 'corp.example/lib'), 'a pattern longer than the path');
  t.notOk(matchesPrefixPattern(['corp.example/l.b'], 'corp.example/lib'), 'a dot is a dot');
  t.notOk(matchesPrefixPattern([], 'corp.example/lib'));
});
