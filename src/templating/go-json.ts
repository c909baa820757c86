/**
 * JSON encoding as Go's encoding/json does it for template values (map keys sorted, `<`, `>`, `&`,
 * U+2028/U+2029 escaped unless `escapeHtml` is false, times as RFC 3339), and decoding.
 * Used by Sprig's toJson/fromJson and by the JS-context escaper.
 */
import { chargeBuilt, chargeText, chargeWalk } from './budget.js';
import { EvalFailure } from './errors.js';
import { GoNull } from './go-null.js';
import { formatTime, RFC3339NANO } from './go-time.js';
import { SafeHTML } from './types.js';
import { isMap, mapGet, sortedKeys } from './values.js';

const MAX_JSON_DEPTH = 200;

const NEEDS_ESCAPE_HTML = /[<>&\u2028\u2029]/;
const NEEDS_ESCAPE = /[\u2028\u2029]/;

function jsonString(s: string, escapeHtml: boolean): string {
  let out = JSON.stringify(s);
  if (!(escapeHtml ? NEEDS_ESCAPE_HTML : NEEDS_ESCAPE).test(out)) return out;
  if (escapeHtml) out = out.replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
  return out.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function encode(v: unknown, escapeHtml: boolean, indent: string, depth: number): string {
  if (depth > MAX_JSON_DEPTH) throw new EvalFailure('json: unsupported value: encountered a cycle or nesting too deep');
  switch (typeof v) {
    case 'string':
      if (depth > 0) chargeText(v);
      return jsonString(v, escapeHtml);
    case 'number':
      if (!Number.isFinite(v)) throw new EvalFailure(`json: unsupported value: ${v}`);
      return JSON.stringify(v);
    case 'boolean': return v ? 'true' : 'false';
    case 'bigint': return v.toString();
    case 'undefined': return 'null';
    case 'function': case 'symbol': throw new EvalFailure(`json: unsupported type: ${typeof v}`);
  }
  if (v === null) return 'null';
  if (v instanceof SafeHTML) return jsonString(v.value, escapeHtml);
  if (v instanceof Date) return jsonString(formatTime(v, RFC3339NANO), escapeHtml);
  if (v instanceof GoNull) return encode(v.jsonValue(), escapeHtml, indent, depth);
  const nl = indent ? `\n${indent.repeat(depth + 1)}` : '';
  const close = indent ? `\n${indent.repeat(depth)}` : '';
  if (Array.isArray(v)) {
    chargeWalk(v.length + 1);
    if (v.length === 0) return '[]';
    return chargeBuilt(`[${v.map((e) => nl + encode(e, escapeHtml, indent, depth + 1)).join(',')}${close}]`);
  }
  const m = isMap(v) ? v : Object.fromEntries(Object.entries(v as object));
  const keys = sortedKeys(m);
  chargeWalk(2 * keys.length + 1);
  if (keys.length === 0) return '{}';
  const sep = indent ? ': ' : ':';
  const parts = keys.map((k) => `${nl}${jsonString(String(k), escapeHtml)}${sep}${encode(mapGet(m, k), escapeHtml, indent, depth + 1)}`);
  return chargeBuilt(`{${parts.join(',')}${close}}`);
}

/**
 * Go's json.Marshal (or MarshalIndent with `indent`). Throws EvalFailure for cycles, NaN, functions,
 * and EvalFailure(bound) when the walk exceeds the execution's step budget (budget.ts).
 */
export function toGoJson(v: unknown, escapeHtml = true, indent = ''): string {
  return encode(v, escapeHtml, indent, 0);
}

/** Go's json.Unmarshal into interface{}: objects become null-prototype maps. Throws EvalFailure. */
export function fromGoJson(s: string): unknown {
  try {
    return JSON.parse(s, (_k, val: unknown) =>
      val !== null && typeof val === 'object' && !Array.isArray(val) ? Object.assign(Object.create(null), val) : val,
    );
  } catch (e) {
    throw new EvalFailure(`json: ${(e as Error).message}`);
  }
}
