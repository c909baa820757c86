/**
 * What a browser would submit from a server-rendered form, read from the HTML with a few regular
 * expressions (the admin's markup is ours and regular: preact writes attributes double-quoted). For
 * HTTP tests of admin forms: fetch the page, take its fields, change some, post them back.
 */

/** Undoes the escaping preact applies to text and attribute values. */
export function decodeEntities(s: string): string {
  return s.replace(/&(lt|gt|quot|amp|#39|#x27);/gu, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', amp: '&', '#39': "'", '#x27': "'" })[e] ?? '');
}

/** Attributes of a tag: quoted values may hold `>` (preact does not escape it in attributes). */
const ATTRS = '(?:[^>"]|"[^"]*")*';

function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}="([^"]*)"`, 'u').exec(tag);
  if (m) return decodeEntities(m[1] as string);
  return new RegExp(`\\s${name}(?=[\\s/>])`, 'u').test(tag) ? '' : undefined;
}

/**
 * The successful controls of the first `<form>` whose tag matches `formPattern` (default: the first
 * form): text-like inputs, hidden inputs, checked checkboxes, textareas and selects (the selected or
 * first option). Submit buttons are left out (add the one "clicked" yourself). Disabled controls are
 * left out, as a browser does, but a disabled fieldset is not looked at.
 */
export function formFields(html: string, formPattern = /<form\b/u): Record<string, string> {
  const start = html.search(formPattern);
  if (start < 0) throw new Error('no such form in the page');
  const end = html.indexOf('</form>', start);
  const form = html.slice(start, end);
  const out: Record<string, string> = {};
  for (const m of form.matchAll(new RegExp(`<input\\b${ATTRS}>`, 'gu'))) {
    const tag = m[0];
    const name = attr(tag, 'name');
    const type = attr(tag, 'type') ?? 'text';
    if (name === undefined || attr(tag, 'disabled') !== undefined || ['submit', 'button', 'reset', 'image', 'file'].includes(type)) continue;
    if ((type === 'checkbox' || type === 'radio') && attr(tag, 'checked') === undefined) continue;
    out[name] = attr(tag, 'value') ?? (type === 'checkbox' ? 'on' : '');
  }
  for (const m of form.matchAll(new RegExp(`<textarea\\b${ATTRS}>([\\s\\S]*?)</textarea>`, 'gu'))) {
    const name = attr(m[0], 'name');
    if (name !== undefined) out[name] = decodeEntities(m[1] as string).replace(/^\n/u, '');
  }
  for (const m of form.matchAll(new RegExp(`<select\\b${ATTRS}>([\\s\\S]*?)</select>`, 'gu'))) {
    const name = attr(m[0], 'name');
    if (name === undefined) continue;
    const options = [...(m[1] as string).matchAll(new RegExp(`<option\\b${ATTRS}>`, 'gu'))].map((o) => o[0]);
    const chosen = options.find((o) => attr(o, 'selected') !== undefined) ?? options[0];
    out[name] = chosen ? (attr(chosen, 'value') ?? '') : '';
  }
  return out;
}
