/**
 * Sprig v3's `urlParse`/`urlJoin` with Go's net/url rules (not the WHATWG URL parser: Go keeps
 * opaque URLs, does not normalise hosts or paths, and decodes the path and fragment), and the path
 * functions `base`, `dir`, `clean`, `ext`, `isAbs` with their `os…` forms (Go's path and, on Linux,
 * path/filepath: pure string functions, no file is touched). From Sprig's url.go and functions.go
 * and Go's net/url and path packages; written anew.
 */
import { EvalFailure } from '../errors.js';
import { goQuote } from '../go-format.js';
import type { CallContext } from '../types.js';
import { isMap, mapGet } from '../values.js';
import { str } from './conv.js';
import { def, type FuncTable } from './registry.js';
import { newDict } from './sprig-lists.js';
import { goKindName } from './sprig-data.js';

type F = (c: CallContext, ...a: unknown[]) => unknown;

const enum Mode { Path, Host, Zone, UserPassword, Query, Fragment }

const isAlnum = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
const ch = (s: string): number => s.charCodeAt(0);

/** net/url's shouldEscape for one byte. */
function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if ((mode === Mode.Host || mode === Mode.Zone) && `!$&'()*+,;=:[]<>"`.includes(String.fromCharCode(c))) return false;
  const s = String.fromCharCode(c);
  if ('-_.~'.includes(s)) return false;
  if ('$&+,/:;=?@'.includes(s)) {
    switch (mode) {
      case Mode.Path: return s === '?';
      case Mode.UserPassword: return '@/?:'.includes(s);
      case Mode.Query: return true;
      case Mode.Fragment: return false;
      default: break;
    }
  }
  if (mode === Mode.Fragment && '!()*'.includes(s)) return false;
  return true;
}

/** net/url's escape over the UTF-8 bytes of `s`. */
function escape(s: string, mode: Mode): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    if (shouldEscape(b, mode)) out += b === 0x20 && mode === Mode.Query ? '+' : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    else out += String.fromCharCode(b);
  }
  return out;
}

const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** net/url's unescape: `%XX` decoded (invalid escapes and host characters are errors). */
function unescape(s: string, mode: Mode): string {
  for (let i = 0; i < s.length; ) {
    const c = s[i] as string;
    if (c === '%') {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        throw new EvalFailure(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      const v = parseInt(s.slice(i + 1, i + 3), 16);
      if (mode === Mode.Host && v < 0x80 && s.slice(i, i + 3) !== '%25') {
        throw new EvalFailure(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      if (mode === Mode.Zone && s.slice(i, i + 3) !== '%25' && v !== 0x20 && shouldEscape(v, Mode.Host)) {
        throw new EvalFailure(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      i += 3;
      continue;
    }
    if ((mode === Mode.Host || mode === Mode.Zone) && ch(c) < 0x80 && shouldEscape(ch(c), mode)) {
      throw new EvalFailure(`invalid character ${goQuote(c)} in host name`);
    }
    i++;
  }
  if (!s.includes('%')) return s;
  const out: number[] = [];
  for (const part of s.split(/(%[0-9a-fA-F]{2})/)) {
    if (part.startsWith('%') && part.length === 3) out.push(parseInt(part.slice(1), 16));
    else out.push(...Buffer.from(part, 'utf8'));
  }
  return Buffer.from(out).toString('utf8');
}

const validOptionalPort = (p: string): boolean => p === '' || /^:[0-9]*$/.test(p);

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new EvalFailure("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new EvalFailure(`invalid port ${goQuote(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) {
      return unescape(host.slice(0, zone), Mode.Host) + unescape(host.slice(zone, i), Mode.Zone) + unescape(host.slice(i), Mode.Host);
    }
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1 && !validOptionalPort(host.slice(i))) throw new EvalFailure(`invalid port ${goQuote(host.slice(i))} after host`);
  }
  return unescape(host, Mode.Host);
}

/** The parts of a Go url.URL that Sprig exposes. */
export interface GoUrl {
  scheme: string;
  opaque: string;
  user: { username: string; password: string | null } | null;
  host: string;
  path: string;
  rawPath: string;
  omitHost: boolean;
  forceQuery: boolean;
  rawQuery: string;
  fragment: string;
}

const validUserinfo = (s: string): boolean => /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);

/** Go's url.Parse; throws EvalFailure with Go's message (`parse "…": …`). */
export function parseGoUrl(raw: string): GoUrl {
  const hash = raw.indexOf('#');
  const u0 = hash === -1 ? raw : raw.slice(0, hash);
  const frag = hash === -1 ? '' : raw.slice(hash + 1);
  const wrap = (what: string, f: () => void): void => {
    try {
      f();
    } catch (e) {
      if (e instanceof EvalFailure) throw new EvalFailure(`parse ${goQuote(what)}: ${e.message}`);
      throw e;
    }
  };
  const u: GoUrl = { scheme: '', opaque: '', user: null, host: '', path: '', rawPath: '', omitHost: false, forceQuery: false, rawQuery: '', fragment: '' };
  wrap(u0, () => parseInto(u, u0));
  if (frag !== '') wrap(raw, () => { u.fragment = unescape(frag, Mode.Fragment); });
  return u;
}

function parseInto(u: GoUrl, raw: string): void {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new EvalFailure('net/url: invalid control character in URL');
  if (raw === '*') {
    u.path = '*';
    return;
  }
  let rest = raw;
  const m = /^([A-Za-z][A-Za-z0-9+\-.]*):/.exec(raw);
  if (raw.startsWith(':')) throw new EvalFailure('missing protocol scheme');
  if (m) {
    u.scheme = (m[1] as string).toLowerCase();
    rest = raw.slice((m[0] as string).length);
  }
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) {
    u.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q !== -1) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (u.scheme !== '') {
      u.opaque = rest;
      return;
    }
    if ((rest.split('/')[0] as string).includes(':')) throw new EvalFailure('first path segment in URL cannot contain colon');
  }
  if ((u.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) [authority, rest] = [authority.slice(0, slash), authority.slice(slash)];
    const at = authority.lastIndexOf('@');
    u.host = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (at >= 0) {
      const info = authority.slice(0, at);
      if (!validUserinfo(info)) throw new EvalFailure('net/url: invalid userinfo');
      const colon = info.indexOf(':');
      u.user = colon === -1
        ? { username: unescape(info, Mode.UserPassword), password: null }
        : { username: unescape(info.slice(0, colon), Mode.UserPassword), password: unescape(info.slice(colon + 1), Mode.UserPassword) };
    }
  } else if (u.scheme !== '' && rest.startsWith('/')) u.omitHost = true;
  u.path = unescape(rest, Mode.Path);
  u.rawPath = escape(u.path, Mode.Path) === rest ? '' : rest;
}

function userString(user: NonNullable<GoUrl['user']>): string {
  const name = escape(user.username, Mode.UserPassword);
  return user.password === null ? name : `${name}:${escape(user.password, Mode.UserPassword)}`;
}

/** Go's URL.String. */
export function goUrlString(u: GoUrl): string {
  let out = u.scheme !== '' ? `${u.scheme}:` : '';
  if (u.opaque !== '') out += u.opaque;
  else {
    if (u.scheme !== '' || u.host !== '' || u.user !== null) {
      if (!(u.omitHost && u.host === '' && u.user === null)) {
        if (u.host !== '' || u.path !== '' || u.user !== null) out += '//';
        if (u.user) out += `${userString(u.user)}@`;
        if (u.host !== '') out += escape(u.host, Mode.Host);
      }
    }
    let path = u.path === '*' ? '*' : escape(u.path, Mode.Path);
    if (u.rawPath !== '') {
      try {
        if (unescape(u.rawPath, Mode.Path) === u.path) path = u.rawPath;
      } catch {
        // invalid raw path: the escaped path is used
      }
    }
    if (path !== '' && !path.startsWith('/') && u.host !== '') out += '/';
    if (out === '' && (path.split('/')[0] as string).includes(':')) out += './';
    out += path;
  }
  if (u.forceQuery || u.rawQuery !== '') out += `?${u.rawQuery}`;
  if (u.fragment !== '') out += `#${escape(u.fragment, Mode.Fragment)}`;
  return out;
}

/** Go's URL.Hostname: the host without port and IPv6 brackets. */
function hostname(host: string): string {
  let h = host;
  const colon = h.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(h.slice(colon))) h = h.slice(0, colon);
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return h;
}

/** Sprig's urlParse: scheme, host, hostname, path, query, opaque, fragment, userinfo. */
function urlParse(_c: CallContext, v: unknown): Record<string, unknown> {
  let u: GoUrl;
  try {
    u = parseGoUrl(str(v));
  } catch (e) {
    throw new EvalFailure(`unable to parse url: ${(e as Error).message}`);
  }
  const d = newDict();
  Object.assign(d, {
    scheme: u.scheme, host: u.host, hostname: hostname(u.host), path: u.path, query: u.rawQuery,
    opaque: u.opaque, fragment: u.fragment, userinfo: u.user ? userString(u.user) : '',
  });
  return d;
}

/** Sprig's urlJoin: a URL from such a dict (string values only; missing keys are empty). */
function urlJoin(_c: CallContext, d: unknown): string {
  if (d !== undefined && d !== null && !isMap(d)) {
    throw new EvalFailure(`urlJoin: wrong type for value; expected map[string]interface {}; got ${goKindName(d)}`);
  }
  const get = (k: string): string => {
    if (!d) return '';
    const has = d instanceof Map ? d.has(k) : Object.hasOwn(d, k);
    if (!has) return '';
    const v = mapGet(d, k);
    if (typeof v !== 'string') throw new EvalFailure(`unable to parse ${k} key, must be of type string, but ${goKindName(v)} found`);
    return v;
  };
  const u: GoUrl = {
    scheme: get('scheme'), host: get('host'), path: get('path'), rawQuery: get('query'), opaque: get('opaque'),
    fragment: get('fragment'), user: null, rawPath: '', omitHost: false, forceQuery: false,
  };
  const info = get('userinfo');
  if (info !== '') {
    let parsed: GoUrl;
    try {
      parsed = parseGoUrl(`proto://${info}@host`);
    } catch (e) {
      throw new EvalFailure(`unable to parse userinfo in dict: ${(e as Error).message}`);
    }
    u.user = parsed.user;
  }
  return goUrlString(u);
}

/** Go's path.Clean: the shortest equivalent path (`.` and `..` resolved, slashes collapsed). */
export function cleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  let dotdot = 0;
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length > dotdot) out.pop();
      else if (!rooted) {
        out.push('..');
        dotdot = out.length;
      }
      continue;
    }
    out.push(seg);
  }
  const joined = out.join('/');
  if (rooted) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

/** Go's path.Base: the last element; `.` for '', `/` for slashes only. */
export function basePath(p: string): string {
  if (p === '') return '.';
  const trimmed = p.replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** Go's path.Dir: all but the last element, cleaned. */
export const dirPath = (p: string): string => cleanPath(p.slice(0, p.lastIndexOf('/') + 1));

/** Go's path.Ext: the suffix from the last `.` of the last element, or ''. */
export function extPath(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) if (p[i] === '.') return p.slice(i);
  return '';
}

const s1 = (fn: (s: string) => unknown): F => (_c, v) => fn(str(v));

/** Sprig's URL and path functions by name. */
export const SPRIG_URL: FuncTable = {
  urlParse: def(urlParse as F, 1),
  urlJoin: def(urlJoin as F, 1),
  base: def(s1(basePath), 1),
  dir: def(s1(dirPath), 1),
  clean: def(s1(cleanPath), 1),
  ext: def(s1(extPath), 1),
  isAbs: def(s1((p) => p.startsWith('/')), 1),
  osBase: def(s1(basePath), 1),
  osDir: def(s1(dirPath), 1),
  osClean: def(s1(cleanPath), 1),
  osExt: def(s1(extPath), 1),
  osIsAbs: def(s1((p) => p.startsWith('/')), 1),
};
