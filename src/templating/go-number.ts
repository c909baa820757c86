/**
 * Go's float formatting (strconv.FormatFloat 'e', 'f', 'g'), written anew on top of JS's exact
 * toExponential/toFixed. Integral JS numbers are printed as Go ints by %v (see README).
 */

/** Exact-enough decimal digits of |x| (101 significant digits): x = 0.d1d2… × 10^dp. */
function exactDigits(x: number): { d: string; dp: number } {
  const [m = '0', e = '0'] = Math.abs(x).toExponential(100).split('e');
  return { d: m.replace('.', ''), dp: Number(e) + 1 };
}

/** Rounds a digit string to `n` significant digits, ties to even (as Go's strconv does). */
function roundDigits(d: string, dp: number, n: number): { d: string; dp: number } {
  if (n >= d.length) return { d, dp };
  if (n < 0) return { d: '0', dp };
  const keep = d.slice(0, n);
  const next = d[n] as string;
  const rest = d.slice(n + 1);
  const lastOdd = keep !== '' && Number(keep[keep.length - 1]) % 2 === 1;
  const up = next > '5' || (next === '5' && (/[1-9]/.test(rest) || lastOdd));
  if (!up) return { d: keep.replace(/0+$/, '') || '0', dp };
  const digits = keep.split('').map(Number);
  let i = digits.length - 1;
  while (i >= 0 && digits[i] === 9) digits[i--] = 0;
  if (i < 0) return { d: '1', dp: dp + 1 };
  digits[i] = (digits[i] as number) + 1;
  return { d: digits.join('').replace(/0+$/, '') || '0', dp };
}

/** Significant digits (no trailing zeros) and decimal-point position of |x|: x = 0.d1d2… × 10^dp. */
function decimal(x: number, sig?: number): { d: string; dp: number } {
  if (sig === undefined) {
    const [m = '0', e = '0'] = Math.abs(x).toExponential().split('e');
    return { d: m.replace('.', '').replace(/0+$/, '') || '0', dp: Number(e) + 1 };
  }
  const ex = exactDigits(x);
  return roundDigits(ex.d, ex.dp, sig);
}

function expSuffix(exp: number, upper: boolean): string {
  const a = Math.abs(exp);
  return `${upper ? 'E' : 'e'}${exp < 0 ? '-' : '+'}${a < 10 ? '0' : ''}${a}`;
}

/** %e form from digits: d[.ddd]e±XX with exactly `decimals` fraction digits. */
function fmtE(d: string, dp: number, decimals: number, upper: boolean): string {
  const frac = d.slice(1).padEnd(decimals, '0').slice(0, decimals);
  return `${d[0]}${decimals > 0 ? `.${frac}` : ''}${expSuffix(d === '0' ? 0 : dp - 1, upper)}`;
}

/** %f form from digits with exactly `decimals` fraction digits (digits must already be rounded). */
function fmtF(d: string, dp: number, decimals: number): string {
  const int = dp <= 0 ? '0' : d.slice(0, dp).padEnd(dp, '0');
  const fracDigits = dp < 0 ? '0'.repeat(-dp) + d : d.slice(Math.max(dp, 0));
  const frac = fracDigits.padEnd(decimals, '0').slice(0, decimals);
  return decimals > 0 ? `${int}.${frac}` : int;
}

function special(x: number): string | null {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  return null;
}

const sign = (x: number): string => (x < 0 || Object.is(x, -0) ? '-' : '');

/** Go %e with precision (default 6). */
export function formatE(x: number, prec = 6, upper = false): string {
  const s = special(x);
  if (s) return s;
  const { d, dp } = x === 0 ? { d: '0', dp: 1 } : decimal(x, prec + 1);
  return sign(x) + fmtE(d, dp, prec, upper);
}

/** Go %f with precision (default 6); exact for large magnitudes too. */
export function formatF(x: number, prec = 6): string {
  const s = special(x);
  if (s) return s;
  const a = Math.abs(x);
  if (a >= 1e21) return `${sign(x)}${BigInt(a).toString()}${prec > 0 ? `.${'0'.repeat(prec)}` : ''}`;
  if (a === 0) return `${sign(x)}${fmtF('0', 1, prec)}`;
  const ex = exactDigits(a);
  const { d, dp } = roundDigits(ex.d, ex.dp, ex.dp + prec);
  return sign(x) + fmtF(d, dp, prec);
}

/** Go %g: shortest representation when prec is undefined (exponent form when exp < -4 or ≥ eprec). */
export function formatG(x: number, prec?: number, upper = false): string {
  const s = special(x);
  if (s) return s;
  if (x === 0) return `${sign(x)}0`;
  const p = prec === undefined ? undefined : Math.max(prec, 1);
  const { d, dp } = decimal(x, p);
  const exp = dp - 1;
  let eprec = p ?? 6;
  if (p !== undefined && eprec > d.length && d.length >= dp) eprec = d.length;
  if (exp < -4 || exp >= eprec) {
    const digits = p === undefined ? d.length : Math.min(p, d.length);
    return sign(x) + fmtE(d, dp, digits - 1, upper);
  }
  return sign(x) + fmtF(d, dp, Math.max(d.length - dp, 0));
}

/** How %v prints a JS number: integral values as Go ints, others as Go float64 (%g shortest). */
export function formatNumberV(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e21) return String(x);
  return formatG(x);
}
