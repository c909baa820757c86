/**
 * Sprig v3's `semver` and `semverCompare` with Masterminds/semver 3.4's rules, which differ from
 * npm's `semver` package (so that package is not used): versions are coerced (`1.2` is 1.2.0, `v1`
 * is 1.0.0, leading zeros allowed), constraints join with `,` or spaces (and) and `||` (or), accept
 * `=`, `!=`, `>`, `<`, `>=`/`=>`, `<=`/`=<`, `~`/`~>`, `^`, wildcards `x`/`X`/`*` and hyphen ranges, and
 * match a prerelease version only when its or-group names a prerelease. Patterns run on re2js
 * (linear time, Go's leftmost-first matching). From Masterminds/semver v3.4.0; written anew.
 */
import { RE2JS } from 're2js';
import { EvalFailure } from '../errors.js';
import type { CallContext } from '../types.js';
import { str } from './conv.js';
import { def, type FuncTable } from './registry.js';

type F = (c: CallContext, ...a: unknown[]) => unknown;

const LOOSE = RE2JS.compile('^v?([0-9]+)(\\.[0-9]+)?(\\.[0-9]+)?(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?$');
const CV = 'v?([0-9|x|X|\\*]+)(\\.[0-9|x|X|\\*]+)?(\\.[0-9|x|X|\\*]+)?(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?';
const OPS = '=||!=|>|<|>=|=>|<=|=<|~|~>|\\^';
const CONSTRAINT = RE2JS.compile(`^\\s*(${OPS})\\s*(${CV})\\s*$`);
const RANGE = RE2JS.compile(`\\s*(${CV})\\s+-\\s+(${CV})\\s*`);
const FIND = RE2JS.compile(`(${OPS})\\s*(${CV})`);
const VALID = RE2JS.compile(`^(\\s*(${OPS})\\s*(${CV})\\s*)((?:\\s+|,\\s*)(${OPS})\\s*(${CV})\\s*)*$`);

/** Submatches of `re` in `s` (null groups as ''), or null. */
function submatch(re: RE2JS, s: string): string[] | null {
  const m = re.matcher(s);
  if (!m.find()) return null;
  const out: string[] = [];
  for (let i = 0; i <= m.groupCount(); i++) out.push(m.group(i) ?? '');
  return out;
}

function allMatches(re: RE2JS, s: string): string[][] {
  const m = re.matcher(s);
  const out: string[][] = [];
  while (m.find()) {
    const g: string[] = [];
    for (let i = 0; i <= m.groupCount(); i++) g.push(m.group(i) ?? '');
    out.push(g);
  }
  return out;
}

const allowed = /^[A-Za-z0-9-]+$/;

/** A parsed version: what `semver` returns; templates call its methods (`.Major`, `.Compare`…). */
export class SemverVersion {
  constructor(
    readonly major: number,
    readonly minor: number,
    readonly patch: number,
    readonly pre: string,
    readonly metadata: string,
    readonly original: string,
  ) {}

  Major(): number { return this.major; }
  Minor(): number { return this.minor; }
  Patch(): number { return this.patch; }
  Prerelease(): string { return this.pre; }
  Metadata(): string { return this.metadata; }
  Original(): string { return this.original; }
  String(): string {
    return `${this.major}.${this.minor}.${this.patch}${this.pre ? `-${this.pre}` : ''}${this.metadata ? `+${this.metadata}` : ''}`;
  }
  toString(): string { return this.String(); }
  /** -1, 0 or 1; metadata is ignored; a prerelease sorts before its release. */
  Compare(o: unknown): number {
    const other = asVersion(o);
    for (const [a, b] of [[this.major, other.major], [this.minor, other.minor], [this.patch, other.patch]] as const) {
      if (a !== b) return a < b ? -1 : 1;
    }
    if (this.pre === '' && other.pre === '') return 0;
    if (this.pre === '') return 1;
    if (other.pre === '') return -1;
    return comparePrerelease(this.pre, other.pre);
  }
  LessThan(o: unknown): boolean { return this.Compare(o) < 0; }
  GreaterThan(o: unknown): boolean { return this.Compare(o) > 0; }
  Equal(o: unknown): boolean { return this.Compare(o) === 0; }
}

function asVersion(o: unknown): SemverVersion {
  if (o instanceof SemverVersion) return o;
  throw new EvalFailure('wrong type for value; expected *semver.Version');
}

function comparePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === '') return -1;
  if (o === '') return 1;
  const sn = /^[0-9]+$/.test(s);
  const on = /^[0-9]+$/.test(o);
  if (!sn && !on) return s > o ? 1 : -1;
  if (!on) return -1;
  if (!sn) return 1;
  const [a, b] = [BigInt(s), BigInt(o)];
  return a > b ? 1 : a < b ? -1 : 0;
}

function comparePrerelease(v: string, o: string): number {
  const [sp, op] = [v.split('.'), o.split('.')];
  for (let i = 0; i < Math.max(sp.length, op.length); i++) {
    const d = comparePart(sp[i] ?? '', op[i] ?? '');
    if (d !== 0) return d;
  }
  return 0;
}

const MAX_U64 = 18446744073709551615n;

function segment(s: string): number {
  const v = BigInt(s);
  if (v > MAX_U64) throw new EvalFailure(`error parsing version segment: strconv.ParseUint: parsing "${s}": value out of range`);
  return Number(v);
}

/** semver.NewVersion (coercing): throws Go's error text. */
export function newVersion(v: string): SemverVersion {
  const m = submatch(LOOSE, v);
  if (!m) throw new EvalFailure('invalid semantic version');
  const pre = m[5] as string;
  const metadata = m[8] as string;
  const version = new SemverVersion(segment(m[1] as string), m[2] ? segment((m[2] as string).slice(1)) : 0,
    m[3] ? segment((m[3] as string).slice(1)) : 0, pre, metadata, v);
  for (const p of pre ? pre.split('.') : []) {
    if (p === '') throw new EvalFailure('invalid prerelease string');
    if (/^[0-9]+$/.test(p) && p.length > 1 && p.startsWith('0')) throw new EvalFailure('version segment starts with 0');
    if (!allowed.test(p)) throw new EvalFailure('invalid prerelease string');
  }
  for (const p of metadata ? metadata.split('.') : []) {
    if (!allowed.test(p)) throw new EvalFailure('invalid metadata string');
  }
  return version;
}

interface Constraint {
  op: string;
  orig: string;
  con: SemverVersion;
  dirty: boolean;
  minorDirty: boolean;
  patchDirty: boolean;
}

const isX = (s: string): boolean => s === 'x' || s === 'X' || s === '*';

function parseConstraint(c: string): Constraint {
  const m = submatch(CONSTRAINT, c);
  if (!m) throw new EvalFailure(`improper constraint: ${c}`);
  const [, op = '', orig = '', major = '', minor = '', patch = '', pre = ''] = m;
  let ver = orig;
  let dirty = false;
  let minorDirty = false;
  let patchDirty = false;
  if (isX(major) || major === '') {
    ver = `0.0.0${pre}`;
    dirty = true;
  } else if (isX(minor.replace(/^\./, '')) || minor === '') {
    [minorDirty, dirty, ver] = [true, true, `${major}.0.0${pre}`];
  } else if (isX(patch.replace(/^\./, '')) || patch === '') {
    [dirty, patchDirty, ver] = [true, true, `${major}${minor}.0${pre}`];
  }
  let con: SemverVersion;
  try {
    con = newVersion(ver);
  } catch {
    throw new EvalFailure('constraint parser error');
  }
  return { op, orig, con, dirty, minorDirty, patchDirty };
}

/** One constraint against a version (Masterminds' constraint functions, errors dropped). */
function check(v: SemverVersion, c: Constraint, includePre: boolean): boolean {
  if (v.pre !== '' && !includePre) return false;
  const k = c.con;
  const tilde = (): boolean => {
    if (v.LessThan(k)) return false;
    if (k.major === 0 && k.minor === 0 && k.patch === 0 && !c.minorDirty && !c.patchDirty) return true;
    if (v.major !== k.major) return false;
    return !(v.minor !== k.minor && !c.minorDirty);
  };
  switch (c.op) {
    case '': case '=':
      return c.dirty ? tilde() : v.Equal(k);
    case '!=':
      if (c.dirty) {
        if (k.major !== v.major) return true;
        if (k.minor !== v.minor && !c.minorDirty) return true;
        if (c.minorDirty) return false;
        if (k.patch !== v.patch && !c.patchDirty) return true;
        if (c.patchDirty) return (v.pre !== '' || k.pre !== '') && comparePrerelease(v.pre, k.pre) !== 0;
      }
      return !v.Equal(k);
    case '>':
      if (!c.dirty) return v.Compare(k) === 1;
      if (v.major > k.major) return true;
      if (v.major < k.major || c.minorDirty) return false;
      if (c.patchDirty) return v.minor > k.minor;
      return v.Compare(k) === 1;
    case '<':
      return v.Compare(k) < 0;
    case '>=': case '=>':
      return v.Compare(k) >= 0;
    case '<=': case '=<':
      if (!c.dirty) return v.Compare(k) <= 0;
      if (v.major > k.major) return false;
      return !(v.major === k.major && v.minor > k.minor && !c.minorDirty);
    case '~': case '~>':
      return tilde();
    case '^': {
      if (v.LessThan(k)) return false;
      if (k.major > 0 || c.minorDirty) return v.major === k.major;
      if (k.major === 0 && v.major > 0) return false;
      if (k.minor > 0 || c.patchDirty) return v.minor === k.minor;
      if (k.minor === 0 && v.minor > 0) return false;
      return k.patch === v.patch;
    }
  }
  return false;
}

/** semver.NewConstraint: or-groups of and-ed constraints; throws Go's error text. */
export function newConstraint(text: string): { groups: Constraint[][]; hasPre: boolean[] } {
  let c = text;
  for (const m of allMatches(RANGE, text)) c = c.replace(m[0] as string, `>= ${m[1]}, <= ${m[11]} `);
  const groups: Constraint[][] = [];
  const hasPre: boolean[] = [];
  for (const or of c.split('||')) {
    if (!submatch(VALID, or)) throw new EvalFailure(`improper constraint: ${or}`);
    const found = allMatches(FIND, or).map((m) => m[0] as string);
    const list = (found.length ? found : [or]).map(parseConstraint);
    groups.push(list);
    hasPre.push(list.some((x) => x.con.pre !== ''));
  }
  return { groups, hasPre };
}

/** Sprig's semverCompare: whether `version` satisfies `constraint`. */
export function semverCompare(constraint: string, version: string): boolean {
  const cs = newConstraint(constraint);
  const v = newVersion(version);
  return cs.groups.some((g, i) => g.every((x) => check(v, x, cs.hasPre[i] as boolean)));
}

/** Sprig's semver functions by name. */
export const SPRIG_SEMVER: FuncTable = {
  semver: def(((_c, v) => newVersion(str(v))) as F, 1),
  semverCompare: def(((_c, c, v) => semverCompare(str(c), str(v))) as F, 2),
};
