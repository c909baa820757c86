/**
 * Other spellings of one request path, the way an attacker probes an authentication check that looks at
 * the URL string (issue 14 finding 1): percent-encoded letters (upper- and lower-case hex), encoded and
 * double-encoded slashes, trailing and doubled slashes, case variants, dot segments, backslashes,
 * semicolons, NUL and blanks, and the absolute form (`GET http://host/path HTTP/1.1`).
 *
 * Each spelling says whether Fastify's router reaches the same route with it (`same`: the router
 * decodes percent-encoded unreserved characters and strips the scheme and host of an absolute form), and
 * whether it can go through `app.inject`, which parses the URL with WHATWG `new URL` (dot segments,
 * `%2e` and backslashes are rewritten there, so those go over a raw socket instead).
 */
import fc from 'fast-check';

/** One spelling of a path. */
export interface Spelling {
  /** What was done to the path, for failure messages. */
  kind: string;
  /** The request target, as sent on the request line. */
  target: string;
  /** True when the router matches it to the same route as the plain path. */
  same: boolean;
  /**
   * True when a 400 is a right answer too: Node's HTTP parser refuses a target that does not start with
   * `/` (or a scheme), and a NUL anywhere in the path is refused with 400 naming it.
   */
  malformed?: boolean;
}

const hex = (c: string, upper: boolean): string => {
  const h = c.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${upper ? h.toUpperCase() : h.toLowerCase()}`;
};

/** `%XX` for `c` in lower- and upper-case hex (one entry when they are the same, e.g. `%61`). */
function encodings(c: string): string[] {
  return [...new Set([hex(c, false), hex(c, true)])];
}

/** Every letter index of `segment` with each of its encodings, and the whole segment encoded. */
function encodedSegment(segment: string): Array<{ kind: string; text: string }> {
  const out: Array<{ kind: string; text: string }> = [];
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] as string;
    if (!/[A-Za-z0-9._-]/u.test(c)) continue;
    for (const e of encodings(c)) out.push({ kind: `letter ${i + 1} as ${e}`, text: segment.slice(0, i) + e + segment.slice(i + 1) });
  }
  for (const upper of [false, true]) out.push({ kind: `all letters encoded (${upper ? 'upper' : 'lower'} hex)`, text: [...segment].map((c) => hex(c, upper)).join('') });
  return out;
}

/** True when `app.inject` sends `target` unchanged (it resolves it with `new URL`, as light-my-request does). */
export function injectKeeps(target: string): boolean {
  if (!target.startsWith('/')) return false;
  const url = new URL(target.startsWith('//') ? `http://localhost${target}` : target, 'http://localhost');
  return url.pathname + url.search === target;
}

/**
 * The spellings of `path` (a concrete path such as `/api/subscribers/1`, without a query). The first
 * entry is the path itself.
 */
export function pathSpellings(path: string): Spelling[] {
  const segments = path.split('/').slice(1);
  const first = segments[0] as string;
  const rest = segments.slice(1);
  const restPath = rest.length > 0 ? `/${rest.join('/')}` : '';
  const last = segments.length - 1;
  const out: Spelling[] = [{ kind: 'plain', target: path, same: true }, { kind: 'with a query', target: `${path}?x=1`, same: true }];
  for (const { kind, text } of encodedSegment(first)) out.push({ kind: `first segment, ${kind}`, target: `/${text}${restPath}`, same: true });
  if (last > 0) {
    const lastSeg = segments[last] as string;
    for (const e of encodings(lastSeg[0] as string)) {
      out.push({ kind: `last segment, first letter as ${e}`, target: `/${segments.slice(0, last).join('/')}/${e}${lastSeg.slice(1)}`, same: true });
    }
  }
  // Encoded slashes: the router does not split on them, so the path names no route.
  for (const slash of ['%2F', '%2f']) {
    if (rest.length > 0) out.push({ kind: `slash after the first segment as ${slash}`, target: `/${first}${slash}${rest.join('/')}`, same: false });
    out.push({ kind: `every slash as ${slash}`, target: `/${segments.join(slash)}`, same: false });
    out.push({ kind: `leading slash as ${slash}`, target: `${slash}${segments.join('/')}`, same: false, malformed: true });
    out.push({ kind: `extra leading ${slash}`, target: `/${slash}${segments.join('/')}`, same: false });
  }
  // Double encoding: decoded once, `%2561` is `%61`, not a letter.
  const c0 = first[0] as string;
  out.push({ kind: 'first letter double-encoded', target: `/%25${hex(c0, false).slice(1)}${first.slice(1)}${restPath}`, same: false });
  out.push({ kind: 'first letter double-encoded (upper hex)', target: `/%25${hex(c0, true).slice(1)}${first.slice(1)}${restPath}`, same: false });
  if (rest.length > 0) out.push({ kind: 'slash double-encoded', target: `/${first}%252F${rest.join('/')}`, same: false });
  // Slashes.
  out.push({ kind: 'trailing slash', target: `${path}/`, same: false });
  out.push({ kind: 'double leading slash', target: `/${path}`, same: false });
  out.push({ kind: 'double trailing slash', target: `${path}//`, same: false });
  if (rest.length > 0) out.push({ kind: 'double slash inside', target: `/${first}//${rest.join('/')}`, same: false });
  // Case.
  out.push({ kind: 'first segment upper-case', target: `/${first.toUpperCase()}${restPath}`, same: first.toUpperCase() === first });
  out.push({ kind: 'first segment capitalised', target: `/${c0.toUpperCase()}${first.slice(1)}${restPath}`, same: c0.toUpperCase() === c0 });
  out.push({ kind: 'whole path upper-case', target: path.toUpperCase(), same: path.toUpperCase() === path });
  out.push({ kind: 'first letter encoded upper-case', target: `/${hex(c0.toUpperCase(), false)}${first.slice(1)}${restPath}`, same: c0.toUpperCase() === c0 });
  // Dot segments, backslashes (raw socket only: `new URL` would resolve them).
  if (rest.length > 0) {
    out.push({ kind: 'dot segment', target: `/${first}/./${rest.join('/')}`, same: false });
    out.push({ kind: 'encoded dot segment', target: `/${first}/%2e/${rest.join('/')}`, same: false });
    out.push({ kind: 'backslash', target: `/${first}\\${rest.join('/')}`, same: false });
    out.push({ kind: 'encoded backslash', target: `/${first}%5C${rest.join('/')}`, same: false });
  }
  out.push({ kind: 'dot-dot segment', target: `/x/..${path}`, same: false });
  out.push({ kind: 'encoded dot-dot segment', target: `/x/%2e%2e${path}`, same: false });
  // Odd characters.
  out.push({ kind: 'semicolon after the first segment', target: `/${first};x${restPath}`, same: false });
  out.push({ kind: 'semicolon at the end', target: `${path};x`, same: false });
  out.push({ kind: 'NUL after the first segment', target: `/${first}%00${restPath}`, same: false, malformed: true });
  out.push({ kind: 'NUL at the end', target: `${path}%00`, same: false, malformed: true });
  out.push({ kind: 'encoded blank at the end', target: `${path}%20`, same: false });
  out.push({ kind: 'encoded tab at the end', target: `${path}%09`, same: false });
  out.push({ kind: 'fragment', target: `${path}#x`, same: true });
  // Absolute form (RFC 9112 §3.2.2): the router strips scheme and host.
  out.push({ kind: 'absolute form', target: `http://x${path}`, same: true });
  out.push({ kind: 'absolute form, https and a port', target: `https://mailroom.test:8443${path}`, same: true });
  out.push({ kind: 'absolute form, upper-case scheme and host', target: `HTTP://X${path}`, same: true });
  out.push({ kind: 'absolute form with an encoded letter', target: `http://x/${hex(c0, true)}${first.slice(1)}${restPath}`, same: true });
  out.push({ kind: 'absolute form with a query', target: `http://x${path}?x=1`, same: true });
  return out;
}

/**
 * A random spelling of `path` for property-based sweeps: each character of each segment may be
 * percent-encoded (either hex case), double-encoded or case-flipped, slashes may be doubled, encoded or
 * get a dot segment, and a trailing slash, query, semicolon, NUL, blank, fragment or (with `raw`)
 * absolute-form prefix may be added; the leading slash stays, so the request line stays valid. Mostly
 * the characters are kept or encoded the way the router decodes again, so a good share of spellings
 * reach the route (`same`). Without `raw`, only spellings `app.inject` keeps unchanged are generated.
 */
export function randomSpelling(path: string, raw = false): fc.Arbitrary<Spelling> {
  type Part = [text: string, keeps: boolean];
  const w = (weight: number, keeps: boolean, ...values: string[]) => values.map((v) => ({ weight, arbitrary: fc.constant<Part>([v, keeps]) }));
  const charSpelling = (c: string): fc.Arbitrary<Part> => {
    if (c === '/') return fc.oneof(...w(60, true, '/'), ...w(1, false, '//', '%2F', '%2f', '/./', '%252F'));
    const flips = [c.toUpperCase(), c.toLowerCase()].filter((x) => x !== c);
    return fc.oneof(...w(40, true, c), ...w(4, true, hex(c, false), hex(c, true)), ...w(1, false, ...flips, `%25${hex(c, true).slice(1)}`));
  };
  const body = fc.tuple(...[...path.slice(1)].map(charSpelling));
  const prefix = raw ? fc.oneof(...w(6, true, ''), ...w(1, true, 'http://x', 'HTTP://mailroom.test:80')) : fc.constant<Part>(['', true]);
  const suffix = fc.oneof(...w(12, true, ''), ...w(1, true, '?x=1', '#f'), ...w(1, false, '/', ';x', '%00', '%20'));
  return fc
    .tuple(prefix, body, suffix)
    .map(([p, b, x]) => ({
      kind: 'random',
      target: `${p[0]}/${b.map((part) => part[0]).join('')}${x[0]}`,
      same: p[1] && x[1] && b.every((part) => part[1]),
      malformed: x[0] === '%00',
    }))
    .filter((sp) => raw || injectKeeps(sp.target));
}
