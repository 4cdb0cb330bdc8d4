/** Sent as `User-Agent: hub/<version>` upstream. */
export const VERSION = '0.1.0';
