/**
 * The registered routes, collected as they are added, so whole-API properties (every route documented,
 * every non-public route authenticated and declaring its permission, no route answering 5xx to bad
 * input) can be checked against the real route table rather than a hand-kept list.
 */
import type { FastifyInstance, FastifySchema, HTTPMethods, RouteOptions } from 'fastify';
import { isPermission, type RouteAccess } from './access.js';

/** One route as registered. */
export interface RouteEntry {
  method: string;
  url: string;
  /** `config: { public: true }`: answers without credentials. */
  readonly public: boolean;
  /** `config.permission`: what a signed-in principal needs (issue 16); null when the route declares none. */
  readonly permission: RouteAccess | null;
  hidden: boolean;
  schema: FastifySchema & { hide?: boolean };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered so far (HEAD routes Fastify adds by itself are not listed). */
    routeTable: RouteEntry[];
  }
}

/** The route config fields the table reports. */
interface AccessConfig {
  public?: boolean;
  permission?: RouteAccess;
}

/**
 * Starts collecting routes; call before any route is registered. `public` and `permission` are read
 * from the route's options when asked, so a config set by a later `onRoute` hook (the CORS preflight
 * route's, src/http/cors.ts) is what the table reports, as it is what the router uses.
 */
export function collectRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]) as HTTPMethods[];
    const config = (): AccessConfig => (route.config ?? {}) as AccessConfig;
    for (const method of methods) {
      if (method === 'HEAD') continue;
      const schema = (route.schema ?? {}) as RouteEntry['schema'];
      table.push({
        method,
        url: route.url,
        get public() {
          return config().public === true;
        },
        get permission() {
          return config().permission ?? null;
        },
        hidden: schema.hide === true,
        schema,
      });
    }
  });
}

/**
 * What is wrong with a route's declared access, or null when it is well formed: a public route
 * declares no permission; any other declares `'authenticated'`, one known permission, or a non-empty
 * list of known permissions (issue 16 item 3: a route without one fails the route-table test).
 */
export function accessProblem(route: Pick<RouteEntry, 'public' | 'permission'>): string | null {
  const p = route.permission;
  if (route.public) return p === null ? null : 'is public and also declares a permission';
  if (p === null) return 'declares neither `public: true` nor a permission';
  if (p === 'authenticated') return null;
  const perms: readonly string[] = typeof p === 'string' ? [p] : p;
  if (perms.length === 0) return 'declares an empty list of permissions';
  const unknown = perms.filter((x) => !isPermission(x));
  return unknown.length > 0 ? `declares unknown permission(s): ${unknown.join(', ')}` : null;
}
