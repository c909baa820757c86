/**
 * Sprig v3's regular expression functions (`regexMatch`, `regexFind`, `regexFindAll`,
 * `regexReplaceAll`, `regexReplaceAllLiteral`, `regexSplit`, `regexQuoteMeta` and the `must…`
 * forms) with Go's `regexp` semantics: RE2 syntax and linear-time matching through re2js (a port of
 * Go's own engine, so `\d`, `(?i)`, `(?P<name>…)` and Go's error texts are the same), Go's rules for
 * successive and empty matches, and Go's `$1`/`${name}` expansion in replacements. Behaviour from
 * Sprig's regex.go and Go's regexp package; written anew.
 */
import { RE2JS } from 're2js';
import { EvalFailure } from '../errors.js';
import { goQuote } from '../go-format.js';
import type { CallContext } from '../types.js';
import { str, toInt64 } from './conv.js';
import { checkSize, def, type FuncTable } from './registry.js';

type F = (c: CallContext, ...a: unknown[]) => unknown;

/** The part of re2js's RE2 object used here (Go's allMatches loop, positions in UTF-16 units). */
interface Re2Engine {
  findAllIndex(s: string, n: number): number[][] | null;
  findAllSubmatchIndex(s: string, n: number): number[][] | null;
}

/** A compiled pattern with what expansion needs. */
interface Compiled {
  engine: Re2Engine;
  groups: number;
  names: Record<string, number>;
}

const CACHE_MAX = 256;
const cache = new Map<string, Compiled | Error>();

/** Steps charged for compiling a pattern that is not cached (a compile costs tens of µs). */
const COMPILE_STEPS = 100;

/**
 * Compiles `pattern` as Go's regexp.Compile does (cached: templates reuse a few patterns on every
 * message). Returns the Go error message as an Error when the pattern is invalid. A cache miss is
 * charged to the step budget, so a loop over ever-new patterns stops at the limit.
 */
function compile(c: CallContext, pattern: string): Compiled | Error {
  const hit = cache.get(pattern);
  if (hit) return hit;
  c.charge(COMPILE_STEPS + (pattern.length >>> 2));
  let out: Compiled | Error;
  try {
    const re = RE2JS.compile(pattern);
    out = { engine: re.re2Input as unknown as Re2Engine, groups: re.groupCount(), names: re.namedGroups() };
  } catch (e) {
    out = new Error(e instanceof Error ? e.message : String(e));
  }
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(pattern, out);
  return out;
}

/** regexp.MustCompile: a panic that the template shows as `regexp: Compile("…"): error parsing regexp: …`. */
function mustCompile(c: CallContext, pattern: string): Compiled {
  const re = compile(c, pattern);
  if (re instanceof Error) throw new EvalFailure(`regexp: Compile(${goQuote(pattern)}): ${re.message}`);
  return re;
}

/** regexp.Compile for the `must…` forms: the error is returned to the template as it is. */
function compileOrFail(c: CallContext, pattern: string): Compiled {
  const re = compile(c, pattern);
  if (re instanceof Error) throw new EvalFailure(re.message);
  return re;
}

/** Go's FindAllStringIndex / FindAllStringSubmatchIndex; n < 0 means all. Never null. */
function allMatches(re: Compiled, s: string, n: number, submatches: boolean): number[][] {
  const limit = n < 0 ? -1 : n;
  if (limit === 0) return [];
  const found = submatches ? re.engine.findAllSubmatchIndex(s, limit) : re.engine.findAllIndex(s, limit);
  return found ?? [];
}

const isNameChar = (ch: string): boolean => /^[\p{L}\p{Nd}_]$/u.test(ch);

/**
 * Go's Regexp.expand: `$1`, `${1}`, `$name`, `${name}` (the longest run of letters, digits and `_`,
 * so `$1x` names group "1x", which does not exist and expands to ''), `$$` for `$`; a malformed
 * reference keeps its `$`.
 */
function expand(out: string[], template: string, src: string, m: number[], re: Compiled): void {
  let t = template;
  for (;;) {
    const at = t.indexOf('$');
    if (at === -1) break;
    out.push(t.slice(0, at));
    t = t.slice(at + 1);
    if (t.startsWith('$')) {
      out.push('$');
      t = t.slice(1);
      continue;
    }
    const brace = t.startsWith('{');
    const body = brace ? t.slice(1) : t;
    let i = 0;
    for (const ch of body) {
      if (!isNameChar(ch)) break;
      i += ch.length;
    }
    if (i === 0 || (brace && body[i] !== '}')) {
      out.push('$');
      continue;
    }
    const name = body.slice(0, i);
    t = body.slice(brace ? i + 1 : i);
    let group = -1;
    if (/^[0-9]+$/.test(name) && !(name.length > 1 && name.startsWith('0')) && name.length <= 9) group = Number(name);
    else if (Object.hasOwn(re.names, name)) group = re.names[name] as number;
    const start = m[2 * group];
    const end = m[2 * group + 1];
    if (group >= 0 && group <= re.groups && start !== undefined && end !== undefined && start >= 0) {
      out.push(src.slice(start, end));
    }
  }
  out.push(t);
}

/** Go's ReplaceAllString (expand `$…` unless `literal`), bounded by the output limit. */
function replaceAll(c: CallContext, re: Compiled, s: string, repl: string, literal: boolean): string {
  const expandRefs = !literal && repl.includes('$');
  const matches = allMatches(re, s, -1, expandRefs);
  if (matches.length === 0) return s;
  c.charge(matches.length);
  const out: string[] = [];
  let size = 0;
  let last = 0;
  for (const m of matches) {
    const [a = 0, b = 0] = m;
    out.push(s.slice(last, a));
    const before = out.length;
    if (expandRefs) expand(out, repl, s, m, re);
    else out.push(repl);
    size += a - last;
    for (let i = before; i < out.length; i++) size += (out[i] as string).length;
    checkSize(c, size, 'regexReplaceAll');
    last = b;
  }
  out.push(s.slice(last));
  return out.join('');
}

/** Go's Regexp.Split: n == 0 gives nil, n > 0 at most n pieces, n < 0 all. */
function split(re: Compiled, pattern: string, s: string, n: number): string[] {
  if (n === 0) return [];
  if (pattern.length > 0 && s.length === 0) return [''];
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of allMatches(re, s, n, false)) {
    if (n > 0 && out.length === n - 1) break;
    end = m[0] as number;
    if (m[1] !== 0) out.push(s.slice(beg, end));
    beg = m[1] as number;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

function findAll(re: Compiled, s: string, n: unknown): string[] {
  return allMatches(re, s, toInt64(n), false).map((m) => s.slice(m[0], m[1]));
}

function findFirst(re: Compiled, s: string): string {
  const m = allMatches(re, s, 1, false)[0];
  return m ? s.slice(m[0], m[1]) : '';
}

/** Go's regexp.QuoteMeta: a backslash before each of `\.+*?()|[]{}^$`. */
export function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

type Compiler = (c: CallContext, p: string) => Compiled;

/** The subject of a match, charged one step per 16 characters (the engine's work is linear). */
function subject(c: CallContext, v: unknown): string {
  const s = str(v);
  if (s.length >= 16) c.charge(s.length >>> 4);
  return s;
}

const match = (get: Compiler): F => (c, p, s) => allMatches(get(c, str(p)), subject(c, s), 1, false).length > 0;
const find = (get: Compiler): F => (c, p, s) => findFirst(get(c, str(p)), subject(c, s));
const findAllF = (get: Compiler): F => (c, p, s, n) => findAll(get(c, str(p)), subject(c, s), n);
const replace = (get: Compiler, literal: boolean): F => (c, p, s, r) => replaceAll(c, get(c, str(p)), subject(c, s), str(r), literal);
const splitF = (get: Compiler): F => (c, p, s, n) => split(get(c, str(p)), str(p), subject(c, s), toInt64(n));

/** Sprig's regex functions by name. `regexMatch` answers false for an invalid pattern, as Sprig. */
export const SPRIG_REGEX: FuncTable = {
  regexMatch: def((c, p, s) => {
    const re = compile(c, str(p));
    return !(re instanceof Error) && allMatches(re, subject(c, s), 1, false).length > 0;
  }, 2),
  mustRegexMatch: def(match(compileOrFail), 2),
  regexFind: def(find(mustCompile), 2),
  mustRegexFind: def(find(compileOrFail), 2),
  regexFindAll: def(findAllF(mustCompile), 3),
  mustRegexFindAll: def(findAllF(compileOrFail), 3),
  regexReplaceAll: def(replace(mustCompile, false), 3),
  mustRegexReplaceAll: def(replace(compileOrFail, false), 3),
  regexReplaceAllLiteral: def(replace(mustCompile, true), 3),
  mustRegexReplaceAllLiteral: def(replace(compileOrFail, true), 3),
  regexSplit: def(splitF(mustCompile), 3),
  mustRegexSplit: def(splitF(compileOrFail), 3),
  regexQuoteMeta: def((_c, s) => quoteMeta(str(s)), 1),
};
