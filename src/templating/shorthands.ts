/**
 * listmonk's `URL@TrackLink` shorthand (listmonk behaviour reference §16.1): WYSIWYG editors cannot
 * hold `{{ TrackLink "…" }}` inside an href, so `https://example.com@TrackLink` is rewritten to
 * `{{ TrackLink "https://example.com" . }}` before parsing. The other listmonk rewrites only add
 * the `.` argument, which our functions do not need (they accept both forms).
 * Unlike listmonk's pattern, the URL may not contain spaces, quotes, `<`, `>` or backslashes, so a
 * shorthand never swallows text before it on the same line.
 */
import type { SourceInfo } from './errors.js';

// Bounded length keeps matching linear even on pathological input.
const SHORTHAND = /(https?:\/\/[^\s"'<>\\`]{1,2048}?)@TrackLink/g;

interface Edit {
  newStart: number;
  newEnd: number;
  origStart: number;
  origEnd: number;
}

/** Applies the rewrite; the returned SourceInfo maps positions back to the user's text. */
export function applyShorthands(name: string, original: string): SourceInfo {
  if (!original.includes('@TrackLink')) return { name, text: original, original, toOriginal: (o) => o };
  const edits: Edit[] = [];
  let delta = 0;
  const text = original.replace(SHORTHAND, (m: string, url: string, offset: number) => {
    const rep = `{{ TrackLink "${url}" . }}`;
    edits.push({ newStart: offset + delta, newEnd: offset + delta + rep.length, origStart: offset, origEnd: offset + m.length });
    delta += rep.length - m.length;
    return rep;
  });
  const toOriginal = (o: number): number => {
    let mapped = o;
    for (const e of edits) {
      if (o < e.newStart) break;
      mapped = o < e.newEnd ? e.origStart : e.origEnd + (o - e.newEnd);
    }
    return mapped;
  };
  return { name, text, original, toOriginal };
}
