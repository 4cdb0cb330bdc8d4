import t from 'tap';
import { acceptedRanges, preferredTypes } from '../src/accept.js';

const CORGI = 'application/vnd.npm.install-v1+json';
const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';

t.test('acceptedRanges: what the header names, q > 0, most preferred first', async (t) => {
  // npm's own header: the abbreviated packument first, then the full one, then anything.
  t.same(acceptedRanges(`${CORGI}; q=1.0, application/json; q=0.8, */*`), [CORGI, '*/*', 'application/json']);
  t.same(acceptedRanges(`application/json, ${CORGI};q=0.5`), ['application/json', CORGI], 'q beats position');
  t.same(acceptedRanges(`${CORGI};q=0, application/json`), ['application/json'], 'q=0 refuses');
  t.same(
    acceptedRanges(`${OCI_INDEX.toUpperCase()}, ${DOCKER_MANIFEST}`),
    [OCI_INDEX, DOCKER_MANIFEST],
    'lower-cased, in order',
  );
  t.same(
    acceptedRanges(`text/plain;x="a, b", ${CORGI}`),
    ['text/plain', CORGI],
    'a comma in a quoted parameter is not a separator',
  );
  t.same(
    acceptedRanges(`${CORGI} ; q = 0.5 , application/json ;q=0.7`),
    ['application/json', CORGI],
    'spaces around parameters',
  );
  t.same(acceptedRanges(undefined), []);
  t.same(acceptedRanges(''), []);
  t.same(acceptedRanges('garbage;;;, ,'), [], 'an unreadable header names nothing');
});

t.test('preferredTypes: most specific range sets q; ties by the client order, then the offer order', async (t) => {
  const offered = ['application/json', 'text/html'];
  t.same(preferredTypes(undefined, offered), offered, 'no header: anything, in offer order');
  t.same(preferredTypes('', offered), [], 'an empty header: nothing');
  t.same(preferredTypes('text/html, application/json', offered), ['text/html', 'application/json']);
  t.same(preferredTypes('*/*', offered), offered);
  t.same(preferredTypes('text/*;q=0.2, */*;q=0.1', offered), ['text/html', 'application/json']);
  t.same(preferredTypes('text/html;q=0, */*', offered), ['application/json'], 'an exact q=0 refuses despite */*');
  t.same(
    preferredTypes('application/*;q=0, application/json;q=0.3', offered),
    ['application/json'],
    'the exact range wins over the wildcard',
  );
  t.same(preferredTypes('application/json;q=1.5, text/html;q=-1', offered), ['application/json'], 'out-of-range q');
  t.same(
    preferredTypes('text/html;q=abc, application/json', offered),
    ['application/json'],
    'a q that is not a number refuses',
  );
});
