/**
 * What each console action sends and gets back, read from the types generated from docs/openapi.json
 * (admin-api.generated.ts): a route whose body or answer changes breaks `npm run build:console`, not a click.
 */
import type { CONSOLE_ACTIONS, ConsoleActionName } from '../../src/actions.ts';
import type { paths } from './admin-api.generated.ts';

type Action<A extends ConsoleActionName> = Extract<(typeof CONSOLE_ACTIONS)[number], { action: A }>;
/** `/api/v1/admin/blocks/:id` as the OpenAPI document spells it: `/api/v1/admin/blocks/{id}`. */
type DocPath<P extends string> = P extends `${infer Head}:${infer Name}/${infer Rest}`
  ? `${Head}{${Name}}/${DocPath<Rest>}`
  : P extends `${infer Head}:${infer Name}`
    ? `${Head}{${Name}}`
    : P;
type Operation<A extends ConsoleActionName> = paths[DocPath<Action<A>['path']> & keyof paths][Lowercase<
  Action<A>['method']
>];
type Json<R> = R extends { content: { 'application/json': infer J } } ? J : never;
type Success<R> = R extends { 200: infer S } ? S : R extends { 201: infer S } ? S : never;

/** The JSON answer of an action's route on success. */
export type ActionAnswer<A extends ConsoleActionName> = Json<Success<NonNullable<Operation<A>>['responses']>>;
/** The JSON body of an action's route (never for routes without one). */
export type ActionBody<A extends ConsoleActionName> = Json<NonNullable<NonNullable<Operation<A>>['requestBody']>>;
