/**
 * Markdown campaign and message bodies are converted to HTML before templating (reference §16.1),
 * with markdown-it (CommonMark, plus GitHub-style tables and strikethrough; raw HTML passes through,
 * as with listmonk's goldmark). Template actions are set aside during the conversion and put back
 * verbatim: otherwise the converter would escape their quotes (`{{ TrackLink "…" }}` would become
 * `{{ TrackLink &quot;…&quot; }}` and no longer parse) and could read `*` or `_` inside them as
 * emphasis. An action can therefore also be a link target: `[Read more]({{ TrackLink "https://…" }})`.
 */
import MarkdownIt from 'markdown-it';
import { protectActions } from './template-actions.js';

const markdown = new MarkdownIt('default', { html: true, linkify: false, typographer: false });

/** A token prefix that does not occur in `src` (letters only, so markdown never interprets it). */
function tokenPrefix(src: string): string {
  let prefix = 'Mrtplx';
  while (src.includes(prefix)) prefix += 'q';
  return prefix;
}

/** Converts a markdown source with template actions to an HTML source with the same actions. */
export function markdownToHtml(source: string): string {
  const prefix = tokenPrefix(source);
  const { text, restore } = protectActions(source, (n) => `${prefix}${n}Z`, new RegExp(`${prefix}(\\d+)Z`, 'gu'));
  return restore(markdown.render(text));
}
