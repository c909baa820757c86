/**
 * Admin page registration (conventions §13: a page is a route table entry plus a view). A resource's
 * `pages.tsx` lists its pages one line each, like its `routes.ts`:
 *
 * ```ts
 * export const listPages = [
 *   page('GET', '/admin/lists', 'lists:get_all', listsIndex),
 *   page('POST', '/admin/lists', 'lists:manage_all', createList),
 *   publicPage('GET', '/admin/login', loginForm),
 * ];
 * registerPages(app, listPages);   // in the module's register function, after installUi(app, …)
 * ```
 *
 * Each becomes a Fastify route whose `config.permission` (or `config.public`) is the declared access, so
 * the authentication hook refuses it and the permission sweep finds it (src/http/access.ts). A handler
 * gets the request and a {@link PageContext} and returns one of:
 * - {@link view}: the page's content, rendered inside the shell (signed in) or the sign-in frame
 *   (public), as a full document, `text/html; charset=utf-8`, with the admin CSP;
 * - {@link fragment}: markup alone, for htmx swaps;
 * - {@link redirect}: 303 See Other to a GET page, with an optional {@link Notice} that the next page
 *   shows (conventions §14; how a notice travels: src/ui/notice.ts). For an htmx request the answer is
 *   200 with `HX-Redirect`, so htmx navigates instead of swapping the next page in.
 * A failed form re-renders: return `view(...)` of the same form with `status: 422` and its errors
 * (components/form.tsx shows each beside its field).
 *
 * A 4xx AppError thrown by a handler (service validation, not found) is rendered as the error page with
 * its status and message; anything else is logged and answered with the generic 500 page. The same holds
 * for errors raised before the handler on a page route (the auth hook's 403 `permission denied`, a
 * missing CSRF token, 429, a malformed body): page routes carry their own Fastify `errorHandler`, so a
 * browser gets an HTML page with the admin CSP, never JSON. Except a 401, which only a request with
 * an Authorization header meets on a page: it gets the API's JSON answer and Basic challenge.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h, type VNode } from 'preact';
import type { RouteAccess } from '../http/access.js';
import { AppError } from '../errors.js';
import { toHttpError } from '../http/error-handler.js';
import { loadAssets } from './assets.js';
import type { PageContext, PublicPageContext, SiteInfo } from './context.js';
import { adminHtmlHeaders, originOf } from './csp.js';
import { AuthShell, Shell } from './layout.js';
import { setNotice, takeNotice, type Notice } from './notice.js';
import { renderDocument, renderFragment } from './render.js';
import { ErrorView } from './views/error.js';

/** What the kit needs from the application (set once with {@link installUi}). */
export interface UiOptions {
  /** The site's name and logo (settings `app.site_name`/`app.logo_url`), read per page. */
  site(): SiteInfo | Promise<SiteInfo>;
  /** Whether cookies the kit sets get `Secure` (the root URL is https). */
  secureCookies: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The page kit's options (src/ui/pages.ts installUi). */
    uiOptions: UiOptions;
  }
}

/** Makes the kit's options available to {@link registerPages}; call once, before any page is registered. */
export function installUi(app: FastifyInstance, options: UiOptions): void {
  app.decorate('uiOptions', options);
}

/** A rendered page: a title and the content inside the layout. */
export interface ViewResult {
  type: 'view';
  title: string;
  body: VNode;
  status: number;
  /** Island entries to load besides main.js (`editor.js`, `charts.js`). */
  islands: readonly string[];
  /** `shell` (navigation; needs a principal) or `auth` (the centred card of sign-in pages). */
  layout: 'shell' | 'auth' | 'auto';
}
/** Markup alone (an htmx swap). */
export interface FragmentResult {
  type: 'fragment';
  body: VNode;
  status: number;
}
/** A 303 to a GET page, with an optional notice. */
export interface RedirectResult {
  type: 'redirect';
  to: string;
  notice: Notice | null;
}
/** What a page handler returns. */
export type PageResult = ViewResult | FragmentResult | RedirectResult;

/** A full page: `title` (the site name is appended) and `body`; status 200 unless given. */
export function view(title: string, body: VNode, opts: { status?: number; islands?: readonly string[]; layout?: ViewResult['layout'] } = {}): ViewResult {
  return { type: 'view', title, body, status: opts.status ?? 200, islands: opts.islands ?? [], layout: opts.layout ?? 'auto' };
}

/** Markup for htmx to swap in; status 200 unless given. */
export function fragment(body: VNode, status = 200): FragmentResult {
  return { type: 'fragment', body, status };
}

/**
 * A redirect (303) to `to`, which must be a local path (starting with one `/`); `notice` is shown on
 * the page it leads to. Throws Error for another target (a handler bug, not user input: validate any
 * user-given `next` with {@link safeNext} first).
 */
export function redirect(to: string, notice?: Notice): RedirectResult {
  if (!isLocalPath(to)) throw new Error(`ui: redirect target must be a local path, got ${JSON.stringify(to)}`);
  return { type: 'redirect', to, notice: notice ?? null };
}

/** True for `/x…` paths on this site (not `//host`, not `/\host`, no scheme, no control characters). */
export function isLocalPath(to: string): boolean {
  return /^\/(?![/\\])/u.test(to) && !/[\u0000-\u001f\u007f\\]/u.test(to);
}

/** A user-given `next` (login) if it is a local /admin path, else `/admin` (no open redirect). */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && isLocalPath(next) && (next === '/admin' || next.startsWith('/admin/') || next.startsWith('/admin?')) ? next : '/admin';
}

/** True when htmx made the request (`HX-Request: true`). */
export function isHtmx(request: FastifyRequest): boolean {
  return request.headers['hx-request'] === 'true';
}

/** A page handler: gets the request and its context, returns what to answer. */
export type PageHandler<C> = (request: FastifyRequest, ctx: C) => PageResult | Promise<PageResult>;

/** One page of a module's page table. */
export interface PageDef {
  method: 'GET' | 'POST';
  url: string;
  access: RouteAccess | 'public';
  handler: PageHandler<PageContext> | PageHandler<PublicPageContext>;
}

/** A page for a signed-in principal holding `permission` (or any of a list; `'authenticated'`: anyone signed in). */
export function page(method: PageDef['method'], url: string, permission: RouteAccess, handler: PageHandler<PageContext>): PageDef {
  return { method, url, access: permission, handler };
}

/** A page anyone may open (sign-in, setup, password reset): its context's principal may be null. */
export function publicPage(method: PageDef['method'], url: string, handler: PageHandler<PublicPageContext>): PageDef {
  return { method, url, access: 'public', handler };
}

/** The path of a request URL (no query). */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/**
 * Builds the context of `request` (site info, assets, principal, CSRF token, notice). Takes the notice
 * (and clears its cookie) only when `withNotice` (full pages, not fragments or redirects).
 */
export async function pageContext(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, withNotice: boolean): Promise<PublicPageContext> {
  const opts = app.uiOptions;
  const [site, assets] = await Promise.all([opts.site(), loadAssets()]);
  const principal = request.principal ?? null;
  return {
    principal,
    csrf: principal?.session?.csrf ?? '',
    path: pathOf(request.url),
    url: request.url,
    notice: withNotice ? takeNotice(request, reply, opts.secureCookies) : null,
    site,
    assets,
  };
}

/** Sends `result` for `request` (the layout chosen by the result and whether someone is signed in). */
export function sendResult(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, ctx: PublicPageContext, result: PageResult): FastifyReply {
  if (result.type === 'redirect') {
    if (result.notice) setNotice(reply, result.notice, app.uiOptions.secureCookies);
    if (isHtmx(request)) return reply.status(200).header('HX-Redirect', result.to).send('');
    return reply.status(303).header('Location', result.to).send('');
  }
  const logoOrigin = originOf(ctx.site.logoUrl);
  adminHtmlHeaders(reply, logoOrigin ? [logoOrigin] : []).status(result.status);
  if (result.type === 'fragment') return reply.send(renderFragment(result.body));
  const useShell = result.layout === 'shell' || (result.layout === 'auto' && ctx.principal !== null);
  const root: VNode =
    useShell && ctx.principal !== null
      ? (h(Shell, { ctx: ctx as PageContext, title: result.title, islands: result.islands, children: result.body }) as VNode)
      : (h(AuthShell, { ctx, title: result.title, children: result.body }) as VNode);
  return reply.send(renderDocument(root));
}

/**
 * Answers `request` with the error page (status, message), in the shell when someone is signed in.
 * For the auth hook (403 on a page) and the /admin not-found handler.
 */
export async function sendErrorPage(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, status: number, message?: string): Promise<FastifyReply> {
  const ctx = await pageContext(app, request, reply, false);
  const v = ErrorView({ status, message });
  return sendResult(app, request, reply, ctx, view(v.title, v.body, { status }));
}

/** Registers `pages` on `app` (after {@link installUi}). */
export function registerPages(app: FastifyInstance, pages: readonly PageDef[]): void {
  for (const def of pages) {
    app.route({
      method: def.method,
      url: def.url,
      config: def.access === 'public' ? { public: true } : { permission: def.access },
      schema: { hide: true },
      errorHandler: async (err, request, reply) => {
        const [status, message] = toHttpError(err);
        // Wrong or malformed credentials in an Authorization header (an API client, not a browser,
        // which is redirected to sign in instead): the app's handler answers its JSON 401 with the
        // `WWW-Authenticate` challenge, as on every API route (test/sweep/auth.test.ts).
        if (status === 401) throw err;
        if (status >= 500) request.log.error({ err }, 'admin page failed');
        else request.log.info({ status, message }, 'admin page refused');
        return sendErrorPage(app, request, reply, status, status >= 500 ? undefined : message);
      },
      handler: async (request, reply) => {
        const ctx = await pageContext(app, request, reply, def.method === 'GET' && !isHtmx(request));
        if (def.access !== 'public' && ctx.principal === null) {
          // The auth hook should have answered already; never render a signed-in page without a principal.
          return reply.status(303).header('Location', `/admin/login?next=${encodeURIComponent(request.url)}`).send('');
        }
        let result: PageResult;
        try {
          result = await (def.handler as PageHandler<PublicPageContext>)(request, ctx);
        } catch (err) {
          if (err instanceof AppError && err.statusCode < 500) {
            const v = ErrorView({ status: err.statusCode, message: err.message });
            result = view(v.title, v.body, { status: err.statusCode });
          } else {
            request.log.error({ err }, 'admin page failed');
            const v = ErrorView({ status: 500 });
            result = view(v.title, v.body, { status: 500 });
          }
        }
        return sendResult(app, request, reply, ctx, result);
      },
    });
  }
}
