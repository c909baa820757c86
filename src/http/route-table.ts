/**
 * The registered routes, collected as they are added, so whole-API properties (every route documented,
 * every non-public route authenticated, no route answering 5xx to bad input) can be checked against the
 * real route table rather than a hand-kept list.
 */
import type { FastifyInstance, FastifySchema, HTTPMethods, RouteOptions } from 'fastify';

/** One route as registered. */
export interface RouteEntry {
  method: string;
  url: string;
  public: boolean;
  hidden: boolean;
  schema: FastifySchema & { hide?: boolean };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered so far (HEAD routes Fastify adds by itself are not listed). */
    routeTable: RouteEntry[];
  }
}

/** Starts collecting routes; call before any route is registered. */
export function collectRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]) as HTTPMethods[];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      const schema = (route.schema ?? {}) as RouteEntry['schema'];
      table.push({
        method,
        url: route.url,
        public: (route.config as { public?: boolean } | undefined)?.public === true,
        hidden: schema.hide === true,
        schema,
      });
    }
  });
}
