/**
 * The one way to put HTML that the kit did not build into a page (issue 16: "raw HTML only through one
 * named, reviewed helper"). Everything else in the admin UI is TSX rendered by preact-render-to-string,
 * which escapes every text child and attribute value; a unit test (test/unit/ui-raw.test.ts) fails when
 * `dangerouslySetInnerHTML` appears anywhere in src/ but in this file.
 *
 * When calling it is safe: only with markup that cannot carry script under the admin Content-Security-
 * Policy (src/ui/csp.ts: `script-src 'self'`, no inline script, no inline style), AND whose author is the
 * program or an administrator allowed to write it, e.g. HTML that Mailroom itself produced (a rendered
 * Markdown preview made by markdown-it with `html: false`, an SVG chart the server drew, a QR code), never
 * a subscriber's or an unauthenticated visitor's text. Stored campaign/template HTML (which may hold
 * anything) is not shown through this helper: it goes in a sandboxed <iframe> served with
 * `Content-Security-Policy: sandbox`. Each call site names its `reason`, so a reviewer can grep them all
 * (`trustedHtml(`).
 */
import { h, type VNode } from 'preact';

/** Where the trusted markup came from (shown in review; not rendered). */
export type TrustedHtmlReason = 'generated-by-mailroom' | 'sanitised-markdown' | 'server-drawn-svg';

/**
 * A `<span>` (or `tag`) whose inner HTML is `html`, inserted unescaped. `reason` documents why the markup
 * is trusted (see this module's comment for when that holds); it has no effect on the output.
 */
export function trustedHtml(html: string, reason: TrustedHtmlReason, tag: 'span' | 'div' = 'span'): VNode {
  void reason;
  return h(tag, { dangerouslySetInnerHTML: { __html: html } }) as VNode;
}
