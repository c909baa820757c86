/**
 * Go-style duration strings as listmonk's settings use them (`"5s"`, `"15m"`, `"1h30m"`, `"250ms"`),
 * converted to milliseconds.
 */

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^(?:(\d+(?:\.\d+)?)(ms|s|m|h))+$/u;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/gu;

/** Parses a duration like `1h30m` or `250ms` into milliseconds; null when it is not one. */
export function parseDuration(text: string): number | null {
  const t = text.trim();
  if (t === '0') return 0;
  if (!DURATION.test(t)) return null;
  let ms = 0;
  for (const m of t.matchAll(PART)) ms += Number(m[1]) * (UNITS[m[2] as string] as number);
  return Math.round(ms);
}

/** TypeBox-friendly pattern for duration strings (schema-level check). */
export const DURATION_PATTERN = '^(0|((\\d+(\\.\\d+)?)(ms|s|m|h))+)$';
