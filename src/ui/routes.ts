/**
 * The kit's own routes: the static assets under /admin/static/<hashed name> (public: no credentials
 * needed for CSS and JS; cached for a year, the name changes with the content), `GET /` → /admin (a new
 * user opening the root URL lands on the admin, listmonk's home aside), and the /admin 404 page for any
 * unmatched /admin URL (HTML with the admin CSP; the rest of the site keeps its JSON 404).
 */
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../errors.js';
import { loadAssets, STATIC_PREFIX } from './assets.js';
import { sendErrorPage } from './pages.js';

/** Registers the kit's routes on `app` (after installUi). */
export function uiRoutes(app: FastifyInstance): void {
  app.get<{ Params: { name: string } }>(`${STATIC_PREFIX}:name`, { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const asset = (await loadAssets()).byFile.get(request.params.name);
    if (asset === undefined) throw new NotFoundError(`unknown asset: ${request.params.name}`);
    return reply
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .header('X-Content-Type-Options', 'nosniff')
      .type(asset.contentType)
      .send(asset.body);
  });
  app.get('/', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => reply.redirect('/admin', 302));
  // Unmatched /admin URLs get the HTML 404 page (registered in a plugin so the prefix scopes it).
  void app.register(
    async (scope) => {
      scope.setNotFoundHandler(async (request, reply) => sendErrorPage(app, request, reply, 404));
    },
    { prefix: '/admin' },
  );
}
