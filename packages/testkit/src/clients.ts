/**
 * The skip reason of a real-client test whose client is absent. It starts with "missing client:", which
 * `.ci/run` looks for: under CI a skipped real-client test fails the run and names the client, since a
 * fresh machine that lacks a client would otherwise pass without testing it.
 */
export function missingClient(client: string, install?: string): string {
  return `missing client: ${client}${install ? ` (${install})` : ''}`;
}
