/**
 * Minimal server-rendered HTML for the public pages (unsubscribe, opt-in, subscription form): one
 * layout, every interpolated value escaped.
 */
import type { FastifyReply } from 'fastify';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/gu, (c) => ESCAPES[c] as string);
}

/** Tagged template that escapes every interpolated value unless it is {@link RawHtml}. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): RawHtml {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    const text = v instanceof RawHtml ? v.value : Array.isArray(v) ? v.map((x) => (x instanceof RawHtml ? x.value : escapeHtml(String(x)))).join('') : escapeHtml(String(v ?? ''));
    out += text + (strings[i + 1] ?? '');
  });
  return new RawHtml(out);
}

/** HTML that is already safe (built with {@link html}). */
export class RawHtml {
  constructor(readonly value: string) {}
}

/** A complete public page with Mailroom's small stylesheet. */
export function page(title: string, body: RawHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>
body{margin:0;background:#f4f5f7;font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#222;line-height:1.5}
main{max-width:520px;margin:48px auto;background:#fff;border-radius:6px;padding:32px}
h1{font-size:22px;margin:0 0 16px}
button{background:#0055d4;color:#fff;border:0;border-radius:4px;padding:10px 18px;font-size:15px;cursor:pointer}
button.secondary{background:#e6e8eb;color:#222}
label{display:block;margin:8px 0}
input[type=text],input[type=email]{width:100%;box-sizing:border-box;padding:8px;border:1px solid #ccc;border-radius:4px;font-size:15px}
.muted{color:#666;font-size:14px}
</style>
</head>
<body><main>${body}</main></body>
</html>`.value;
}

/** Sends a public page: status, no caching, not indexed. */
export function sendPage(reply: FastifyReply, status: number, title: string, body: RawHtml): FastifyReply {
  return reply
    .status(status)
    .header('X-Robots-Tag', 'noindex')
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page(title, body));
}
