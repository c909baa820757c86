/**
 * listmonk's template functions (listmonk behaviour reference §16.3): TrackLink, TrackView,
 * UnsubscribeURL, ManageURL, OptinURL, MessageURL, ArchiveURL, RootURL, LogoURL (listmonk's system
 * e-mails, cmd/init.go initTplFuncs), Date, L and Safe.
 * They read per-message values only through the caller's RenderEnv and the data; never the
 * environment, files or network. Each accepts listmonk's optional trailing `.` argument.
 */
import { ANSIC, formatTime } from '../go-time.js';
import type { CallContext, RenderEnv } from '../types.js';
import { SafeHTML } from '../types.js';
import { str } from './conv.js';
import { I18n } from '../i18n.js';
import { def, type FuncTable } from './registry.js';

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** Reads `root.<a>.<b>` from plain or class-instance data without ever throwing. */
function pick(root: unknown, a: string, b: string): string {
  const outer = root !== null && typeof root === 'object' ? (root as Record<string, unknown>)[a] : undefined;
  const inner = outer !== null && typeof outer === 'object' ? (outer as Record<string, unknown>)[b] : undefined;
  return typeof inner === 'string' && inner !== '' ? inner : ZERO_UUID;
}

const rootUrl = (env: RenderEnv): string => (env.rootUrl ?? '').replace(/\/+$/, '');

type UrlHook = 'unsubscribeUrl' | 'manageUrl' | 'optinUrl' | 'messageUrl' | 'archiveUrl';

/** listmonk's URL formulas, used when the caller gives no hook. */
const FORMULAS: Record<UrlHook, (c: CallContext) => string> = {
  unsubscribeUrl: (c) => `${rootUrl(c.env)}/subscription/${pick(c.root, 'Campaign', 'UUID')}/${pick(c.root, 'Subscriber', 'UUID')}`,
  manageUrl: (c) => `${FORMULAS.unsubscribeUrl(c)}?manage=true`,
  optinUrl: (c) => `${rootUrl(c.env)}/subscription/optin/${pick(c.root, 'Subscriber', 'UUID')}?`,
  messageUrl: (c) => `${rootUrl(c.env)}/campaign/${pick(c.root, 'Campaign', 'UUID')}/${pick(c.root, 'Subscriber', 'UUID')}`,
  archiveUrl: (c) => `${rootUrl(c.env)}/archive`,
};

function urlFunc(hook: UrlHook) {
  return def((c: CallContext) => {
    const fn = c.env[hook];
    return fn ? fn.call(c.env, c.root) : FORMULAS[hook](c);
  }, 0, 1);
}

/** The `&amp;` → `&` normalisation listmonk applies to tracked URLs (WYSIWYG editors escape them). */
export function normalizeTrackedUrl(url: string): string {
  return url.includes('&amp;') ? url.replace(/&amp;/g, '&') : url;
}

function trackLink(c: CallContext, url: unknown): string {
  const u = normalizeTrackedUrl(str(url));
  return c.env.trackLink ? c.env.trackLink.call(c.env, u, c.root) : u;
}



/** The listmonk functions by name. */
export const LISTMONK_FUNCS: FuncTable = {
  TrackLink: def(trackLink as (c: CallContext, ...a: unknown[]) => unknown, 1, 2),
  TrackView: def((c) => new SafeHTML(c.env.trackView ? c.env.trackView.call(c.env, c.root) : ''), 0, 1),
  UnsubscribeURL: urlFunc('unsubscribeUrl'),
  ManageURL: urlFunc('manageUrl'),
  OptinURL: urlFunc('optinUrl'),
  MessageURL: urlFunc('messageUrl'),
  ArchiveURL: urlFunc('archiveUrl'),
  RootURL: def((c) => rootUrl(c.env), 0, 1),
  LogoURL: def((c) => c.env.logoUrl ?? '', 0, 1),
  Date: def((c, layout) => formatTime(c.env.now ? c.env.now() : new Date(), str(layout) || ANSIC), 1),
  L: def((c) => I18n.for(c.env.lang), 0),
  Safe: def((_c, s) => new SafeHTML(str(s)), 1),
};
