/**
 * The admin pages' Content-Security-Policy (issue 16: strict, no `unsafe-inline`, no `unsafe-eval`).
 * Scripts and styles come only from /admin/static (same origin), so no markup may carry an inline
 * <script>, an event-handler attribute or a `style` attribute: the browser would refuse them. The API
 * and public pages keep the policy of src/http/security.ts (helmet); an admin HTML answer replaces it
 * with this one, which only ever allows less (no `https:` images, no inline styles).
 */
import type { FastifyReply } from 'fastify';

/** The directives after `img-src`. */
const REST = [
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "base-uri 'none'",
  "object-src 'none'",
];

/**
 * The policy for a page that may also show images from `imgOrigins` (the origin of the configured logo,
 * setting `app.logo_url`, which is usually on another host); only `http(s)://host[:port]` origins are
 * accepted, anything else is ignored.
 */
export function adminCsp(imgOrigins: readonly string[] = []): string {
  const extra = imgOrigins.filter((o) => /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$/iu.test(o));
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    ["img-src 'self' data:", ...extra].join(' '),
    ...REST,
  ].join('; ');
}

/** The policy, as sent in the `Content-Security-Policy` header of every /admin HTML answer. */
export const ADMIN_CSP = adminCsp();

/** The origin of an absolute http(s) URL (e.g. the logo's), or null. */
export function originOf(url: string | null | undefined): string | null {
  if (!url || !/^https?:\/\//iu.test(url)) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * Sets the admin HTML headers on `reply`: the CSP above (plus `imgOrigins` for images), `text/html; charset=utf-8`, `no-store` (pages
 * show private data), not indexed, and `Vary: HX-Request` (htmx asks for fragments of the same URLs).
 */
export function adminHtmlHeaders(reply: FastifyReply, imgOrigins: readonly string[] = []): FastifyReply {
  return reply
    .header('Content-Security-Policy', adminCsp(imgOrigins))
    .header('Cache-Control', 'no-store')
    .header('X-Robots-Tag', 'noindex')
    .header('Vary', 'HX-Request')
    .type('text/html; charset=utf-8');
}
