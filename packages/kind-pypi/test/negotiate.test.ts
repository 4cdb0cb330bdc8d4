import t from 'tap';
import { negotiate } from '../src/negotiate.js';

t.test('PEP 691 negotiation with q-values', async (t) => {
  const cases: Array<[string | undefined, string]> = [
    [undefined, 'html'],
    ['', 'html'],
    ['*/*', 'html'],
    ['text/html', 'html'],
    ['application/vnd.pypi.simple.v1+json', 'json'],
    ['application/vnd.pypi.simple.latest+json', 'json'],
    ['application/vnd.pypi.simple.v1+html', 'html-v1'],
    // pip's own header
    ['application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01', 'json'],
    ['application/vnd.pypi.simple.v1+json; q=0.2, text/html', 'html'],
    ['application/vnd.pypi.simple.v1+json;q=0, */*', 'html'],
    ['text/html;q=0, */*;q=0.5', 'html-v1'],
    ['text/html;q=0, application/vnd.pypi.simple.v1+html;q=0, */*', 'json'],
    ['application/*', 'json'],
    ['application/xml', 'html'],
    ['TEXT/HTML;Q=0.9, application/vnd.pypi.simple.v1+json;q=0.8', 'html'],
    ['garbage;;;, ,', 'html'],
  ];
  for (const [accept, want] of cases) t.equal(negotiate(accept), want, `Accept: ${accept}`);
});
