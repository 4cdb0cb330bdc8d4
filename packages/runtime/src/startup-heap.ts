import v8 from 'node:v8';

/**
 * V8 doubles the young generation while a program loads (nearly everything loaded survives its scavenges),
 * up to two 16 MiB semi-spaces that an idle process then keeps resident: about 30 MB of an idle hub's RSS,
 * holding nothing. `hub serve` holds that growth off before it loads the runtime; createHub() lets it grow
 * again once the hub has started, so under load V8 sizes the young generation as it always does (decision
 * 0032). A process started with young-generation flags of its own is left alone.
 */
const DEFAULT_GROWTH_FACTOR = 2;
let holding = false;

/** Call before importing the runtime and the plugins (it only helps what is loaded after it). */
export function holdYoungGeneration(): void {
  if (holding || /semi[-_]space/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`)) return;
  holding = true;
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}

/** Lets the young generation grow again (createHub() calls it once started; a no-op unless held). */
export function startupDone(): void {
  if (!holding) return;
  holding = false;
  v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
}
