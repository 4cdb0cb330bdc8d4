// The ceiling of a warm small hit on this machine, for bench/run.mjs: one file's bytes held in memory, served
// by a bare koa app (`koa`) or by node:http (`http`), nothing else per request. Prints {url, pid}; stops on SIGTERM.
import fs from 'node:fs';
import http from 'node:http';
import Koa from 'koa';

const [mode, file] = process.argv.slice(2);
const body = fs.readFileSync(file);
let server;
if (mode === 'koa') {
  const app = new Koa();
  app.use((ctx) => {
    ctx.type = 'application/octet-stream';
    ctx.body = body;
  });
  server = http.createServer(app.callback());
} else {
  server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
    res.end(body);
  });
}
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}`, pid: process.pid })}\n`),
);
process.once('SIGTERM', () => server.close(() => process.exit(0)));
