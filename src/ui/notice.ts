/**
 * Notices: the outcome of a form post shown on the page the browser is sent to (conventions §14: POST →
 * 303 → GET with the outcome in a notice), without keeping anything in a process's memory (issue 16:
 * several instances, no sticky sessions).
 *
 * How a notice travels: the POST's 303 answer sets a short-lived cookie `mailroom_notice` (Path=/admin,
 * HttpOnly, SameSite=Lax, Max-Age 60 s, Secure on https) holding `base64url(JSON [kind, key, params])`.
 * The next full admin page read through {@link takeNotice} shows it and clears the cookie in the same
 * answer, so it appears once, on whichever instance serves the GET.
 *
 * Why this is safe although the browser sends the value back: only a catalogue *key* travels, never
 * text; a key the catalogue does not have, an unknown kind, or a malformed cookie is dropped; parameter
 * values (e.g. a list's name) are capped at 200 characters and rendered escaped like every other value.
 * So a forged cookie can at worst show one of Mailroom's own messages.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasMessage, t } from './i18n.js';

/** A notice's kind: a success (role=status), or an error/warning (role=alert), or information. */
export type NoticeKind = 'success' | 'info' | 'warning' | 'error';

/** A notice to show: a catalogue key and its `{name}` parameters. */
export interface Notice {
  kind: NoticeKind;
  key: string;
  params?: Readonly<Record<string, string | number>>;
}

/** The cookie's name. */
export const NOTICE_COOKIE = 'mailroom_notice';
const KINDS: readonly NoticeKind[] = ['success', 'info', 'warning', 'error'];
const MAX_PARAM = 200;
const MAX_COOKIE = 2048;

/** The notice's text, from the catalogue. */
export function noticeText(n: Notice): string {
  return t(n.key, n.params);
}

/** Encodes `n` as the cookie value. */
export function encodeNotice(n: Notice): string {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(n.params ?? {})) params[k] = String(v).slice(0, MAX_PARAM);
  return Buffer.from(JSON.stringify([n.kind, n.key, params]), 'utf8').toString('base64url');
}

/** Decodes a cookie value; null when it is malformed, of an unknown kind, or names no catalogue key. */
export function decodeNotice(value: string): Notice | null {
  if (value.length > MAX_COOKIE || !/^[A-Za-z0-9_-]*$/u.test(value)) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 3) return null;
    const [kind, key, params] = parsed as [unknown, unknown, unknown];
    if (typeof kind !== 'string' || !KINDS.includes(kind as NoticeKind)) return null;
    if (typeof key !== 'string' || !hasMessage(key)) return null;
    if (params === null || typeof params !== 'object' || Array.isArray(params)) return null;
    const clean: Record<string, string> = {};
    for (const [k, v] of Object.entries(params)) if (typeof v === 'string' && /^[a-z0-9.-]{1,40}$/iu.test(k)) clean[k] = v.slice(0, MAX_PARAM);
    return { kind: kind as NoticeKind, key, params: clean };
  } catch {
    return null;
  }
}

/** The value of cookie `name` in the request's Cookie header, or undefined. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function cookie(value: string, maxAge: number, secure: boolean): string {
  return `${NOTICE_COOKIE}=${value}; Path=/admin; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** Sets the notice cookie on `reply` (before a 303); `secure` adds `Secure` (root URL on https). */
export function setNotice(reply: FastifyReply, n: Notice, secure: boolean): void {
  void reply.header('Set-Cookie', cookie(encodeNotice(n), 60, secure));
}

/**
 * The notice the browser brought back, if any, and clears its cookie on `reply`. Called once per full
 * page (not for htmx fragments, so a fragment cannot swallow it).
 */
export function takeNotice(request: FastifyRequest, reply: FastifyReply, secure: boolean): Notice | null {
  const value = readCookie(request, NOTICE_COOKIE);
  if (value === undefined) return null;
  void reply.header('Set-Cookie', cookie('', 0, secure));
  return decodeNotice(value);
}
