#!/usr/bin/env node
// `hub serve` stays up: V8's young generation is held at its first size from before anything loads (decision
// 0032). main.js's own imports reach most of the runtime, so the hold comes before main.js is imported.
if (process.argv[2] === 'serve') (await import('@hub/runtime/startup-heap')).holdYoungGeneration();
const { main } = await import('./main.js');

// `hub audit-log | head`: a reader that stops early is not an error, and never a stack trace.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

process.exitCode = await main(process.argv.slice(2));
