import t from 'tap';
import { reasonPhrase } from '../src/server/error-middleware.js';

t.test('the reason phrase: the standard phrase and the message, printable ASCII only, capped', async (t) => {
  t.equal(reasonPhrase(403, 'left-pad 1.3.0 is blocked by secteam'), 'Forbidden: left-pad 1.3.0 is blocked by secteam');
  t.equal(
    reasonPhrase(404, 'naïve\r\nX-Injected: 1'),
    'Not Found: na?ve??X-Injected: 1',
    'no CR/LF (no header injection), no non-ASCII',
  );
  t.equal(reasonPhrase(403, 'x'.repeat(1000)).length, 300);
  t.equal(reasonPhrase(599, 'odd'), 'Error: odd');
});
