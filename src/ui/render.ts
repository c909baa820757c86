/**
 * Rendering TSX to HTML text with preact-render-to-string, which escapes every text child and attribute
 * value (`<`, `&`, `"`); the only way around it is src/ui/raw.ts.
 */
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** A whole document: `<!doctype html>` and the rendered <html> element. */
export function renderDocument(root: VNode): string {
  return `<!doctype html>\n${renderToString(root)}`;
}

/** A fragment (what htmx swaps in): the rendered markup alone. */
export function renderFragment(node: VNode): string {
  return renderToString(node);
}
