/**
 * Child-process entry of the fault plan's S3 server: `node s3-main.js <directory> <port> <bucket>` runs s3rver on
 * 127.0.0.1:<port> keeping objects under <directory>, until it is killed. A restart on the same directory serves
 * the same objects.
 */
import S3rver from 's3rver';

const [directory, port, bucket] = process.argv.slice(2);
if (!directory || !port || !bucket) {
  process.stderr.write('usage: s3-main.js <directory> <port> <bucket>\n');
  process.exit(2);
}
const server = new S3rver({
  port: Number(port),
  address: '127.0.0.1',
  silent: true,
  directory,
  configureBuckets: [{ name: bucket }],
});
await server.run();
process.stdout.write(`s3rver listening on 127.0.0.1:${port}\n`);
