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
    // uv's header, a browser's, and wildcards at several levels
    ['application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01', 'json'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8', 'html'],
    ['*/*;q=0', 'html'],
    ['application/*;q=0.5, text/html;q=0.4', 'json'],
    ['application/*;q=0.5, text/*;q=0.6', 'html'],
    ['application/vnd.pypi.simple.v1+json;q=0.9, application/*;q=1', 'html-v1'],
    // q-values with spaces, three decimals and quoted parameters holding commas
    ['text/html ; q = 0.001 , application/vnd.pypi.simple.v1+html;q=0.002', 'html-v1'],
    ['text/plain;a="x, text/html", application/vnd.pypi.simple.v1+json;q=0.1', 'json'],
    // a tie in q and specificity: the client's order
    ['application/vnd.pypi.simple.v1+json, text/html', 'json'],
    ['application/vnd.pypi.simple.latest+html, application/vnd.pypi.simple.latest+json', 'html-v1'],
  ];
  for (const [accept, want] of cases) t.equal(negotiate(accept), want, `Accept: ${accept}`);
});
