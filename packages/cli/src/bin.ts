#!/usr/bin/env node
import { main } from './main.js';

// `hub audit-log | head`: a reader that stops early is not an error, and never a stack trace.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

process.exitCode = await main(process.argv.slice(2));
