/**
 * Answers whose body is HTML written by users: template and campaign previews, "view in browser",
 * the public archive. Such HTML may contain scripts (a template is arbitrary HTML), so it is served
 * in a sandbox: `Content-Security-Policy: sandbox` gives the page an opaque origin with scripts,
 * forms and plugins disabled, so it cannot act on Mailroom's origin (listmonk CVE-2026-21483, stored
 * XSS through previews). Links may still open new windows (`allow-popups…`), as e-mail links do.
 * `nosniff` stops browsers from reading the body as anything but its declared type, and
 * `Referrer-Policy: no-referrer` keeps subscriber UUIDs in the URL from leaking to linked sites.
 */
import type { FastifyReply } from 'fastify';

/** The Content-Security-Policy of rendered user HTML. */
export const SANDBOX_CSP = 'sandbox allow-popups allow-popups-to-escape-sandbox';

/** A rendered body: HTML, or plain text for `plain` campaigns. */
export interface RenderedBody {
  html?: string;
  text?: string;
}

/** Options: the status, and whether search engines may index the page (the public archive). */
export interface RenderedOptions {
  status?: number;
  index?: boolean;
}

/** Sends a rendered body with the sandbox headers. */
export function sendRendered(reply: FastifyReply, body: RenderedBody, opts: RenderedOptions = {}): FastifyReply {
  const isHtml = body.html !== undefined;
  void reply
    .status(opts.status ?? 200)
    .header('Content-Security-Policy', SANDBOX_CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-store');
  if (opts.index !== true) void reply.header('X-Robots-Tag', 'noindex');
  return reply.type(isHtml ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8').send(isHtml ? body.html : (body.text ?? ''));
}
