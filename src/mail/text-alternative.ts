/**
 * The plain-text alternative of HTML messages when the campaign has no `altbody` (issue 4 §3),
 * generated with html-to-text.
 *
 * html-to-text costs about 0.7 ms for a 5 KB newsletter (about 40 times the render itself;
 * docs/benchmarks.md, section `text-alternative`), too much to pay once per message in a large
 * campaign. So it is paid once per campaign: the HTML *template sources* are converted with their
 * actions set aside as opaque tokens, the actions are put back into the text, and the result is
 * compiled as a text-mode template that each message executes (cheap, like the HTML render).
 * Converting the source gives the same text as converting each rendered message, except that values
 * inserted by actions are not re-wrapped and that actions in parts html-to-text drops (`<head>`,
 * attributes other than `href`) produce nothing, as in a converted message.
 *
 * When that is not safe — the converted text does not compile (an `if` whose `end` sat in a dropped
 * part), or entities decode to new `{{` — each rendered message is converted instead (slow, correct).
 */
import { compile as compileConverter } from 'html-to-text';
import { compile, type CompiledTemplate, type TemplateSource, TemplateSyntaxError } from '../templating/index.js';
import { protectActions } from './template-actions.js';

const HEADING = { leadingLineBreaks: 2, trailingLineBreaks: 1, uppercase: false };

/**
 * The shared, pre-built converter: 78-column lines (RFC 5322 recommends at most 78), images left out
 * (tracking pixels and decorative images carry no text), a link's URL shown after its text unless
 * they are the same, headings kept in their case (values inserted in them are not upper-cased
 * either), table rows on lines of their own.
 */
export const htmlToText: (html: string) => string = compileConverter({
  wordwrap: 78,
  formatters: {
    // Layout tables put cells side by side: keep a space between their texts.
    cell: (elem, walk, builder) => {
      walk(elem.children, builder);
      builder.addInline(' ');
    },
  },
  selectors: [
    { selector: 'td', format: 'cell' },
    { selector: 'th', format: 'cell' },
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    { selector: 'h1', options: { ...HEADING, leadingLineBreaks: 1 } },
    { selector: 'h2', options: HEADING },
    { selector: 'h3', options: HEADING },
    { selector: 'h4', options: HEADING },
    { selector: 'h5', options: HEADING },
    { selector: 'h6', options: HEADING },
    { selector: 'tr', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
    { selector: 'table', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
  ],
});

// Private-use characters: never in real text, unchanged by upper-casing and word wrapping.
const OPEN = '\uE000';
const CLOSE = '\uE001';
const TOKEN = /\uE000(\d+)\uE001/gu;

/** Converts one HTML template source to a text template source with the same actions; null when unsafe. */
export function htmlSourceToText(source: string): string | null {
  if (source.includes(OPEN) || source.includes(CLOSE)) return null;
  const { text, restore } = protectActions(source, (n) => `${OPEN}${n}${CLOSE}`, TOKEN);
  const converted = htmlToText(text);
  // Entities such as &#123;&#123; decode to `{{`, which the text template would read as an action.
  if (converted.includes('{{') || converted.includes('}}')) return null;
  return restore(converted);
}

/**
 * Compiles the text alternative of HTML template sources (the same names as the HTML compile, e.g.
 * `base` and `content`). Returns null when the sources cannot be converted safely; callers then
 * convert each rendered message with {@link htmlToText}.
 */
export function compileTextAlternative(sources: TemplateSource[]): CompiledTemplate | null {
  const converted: TemplateSource[] = [];
  for (const s of sources) {
    const text = htmlSourceToText(s.source);
    if (text === null) return null;
    converted.push({ name: s.name, source: text });
  }
  try {
    return compile(converted, { mode: 'text' });
  } catch (err) {
    if (err instanceof TemplateSyntaxError) return null;
    throw err;
  }
}
