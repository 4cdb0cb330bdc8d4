/** The parts of `oidc-provider` (which ships no types) the test provider uses. */
declare module 'oidc-provider' {
  import type http from 'node:http';

  interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: http.IncomingMessage, res: http.ServerResponse) => void;
    interactionDetails(
      req: http.IncomingMessage,
      res: http.ServerResponse,
    ): Promise<{ uid: string; params: Record<string, unknown> }>;
    interactionFinished(
      req: http.IncomingMessage,
      res: http.ServerResponse,
      result: Record<string, unknown>,
      opts?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    Grant: new (o: { accountId: string; clientId: string }) => Grant;
    Client: { find(id: string): Promise<object | undefined> };
  }
}
