import type { TSchema } from 'typebox';
import type { Permission } from '@hub/contract';

/**
 * What the OpenAPI document (built by @hub/admin) says about one route: the admin kit's routes give it from
 * their own declaration (the schemas they validate with); a route mounted by hand (a flag push) is described with it.
 */
export interface RouteDoc {
  method: 'GET' | 'POST' | 'DELETE';
  /** A @koa/router path below the root (`/api/v1/admin/blocks/:id`). */
  path: string;
  /** null: the route authenticates otherwise (a signed flag push). */
  permission: Permission | null;
  /** One line for the OpenAPI document. */
  summary?: string;
  /** The path parameters (strings). */
  params?: TSchema;
  /** The query string: an object of optional strings (the admin kit checks it before the handler runs: 400 naming the parameter). */
  query?: TSchema;
  body?: TSchema;
  /** The success answer's schema (tests validate real answers against it). */
  response?: TSchema;
  /** The success status (default 200; 201 for creations). */
  status?: number;
  /** The answer is not JSON (a CSV export). */
  produces?: string;
  /** JSON answers in several media types, chosen by the request (an SBOM's format): schema per media type. */
  answers?: Readonly<Record<string, TSchema>>;
}

/** The routes a hub's plugins mounted, in mount order. */
export interface AdminRouteCatalog {
  add(routes: readonly RouteDoc[]): void;
  routes(): readonly RouteDoc[];
}

export function createAdminRouteCatalog(): AdminRouteCatalog {
  const all: RouteDoc[] = [];
  return {
    add(routes) {
      all.push(...routes);
    },
    routes: () => all,
  };
}
