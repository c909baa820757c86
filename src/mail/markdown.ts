/**
 * Markdown bodies that contain template actions. The markdown is converted to HTML before the
 * template is compiled (so values are escaped for HTML when rendered), but markdown-it would also
 * rewrite the actions themselves (`"` → `&quot;`, `*` → `<em>`), breaking `{{ join ", " .x }}` or
 * `{{ .A | default "x" }}`. So each `{{ … }}` action is swapped for an inert token first and put back
 * after conversion. An action containing `}}` inside a string literal is not supported (rare).
 */
import { randomBytes } from 'node:crypto';
import MarkdownIt from 'markdown-it';

const markdown = new MarkdownIt({ html: true, linkify: false, typographer: false });
const ACTION = /\{\{[\s\S]*?\}\}/gu;

/** Converts a markdown template source to an HTML template source, leaving its actions untouched. */
export function markdownTemplateToHtml(source: string): string {
  const actions: string[] = [];
  // Letters and digits only: markdown leaves them alone in text, links and code alike.
  const nonce = `mrtpl${randomBytes(6).toString('hex')}`;
  const protectedSource = source.replace(ACTION, (action) => `${nonce}x${actions.push(action) - 1}x`);
  const html = markdown.render(protectedSource);
  return html.replace(new RegExp(`${nonce}x(\\d+)x`, 'gu'), (_, i: string) => actions[Number(i)] ?? '');
}
