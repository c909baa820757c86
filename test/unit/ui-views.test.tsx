/**
 * The UI kit's views and components rendered to strings, without a server: every prop given a hostile
 * value comes out escaped, markup stays CSP-safe (no inline script or style), fields tie their errors
 * to the input, the navigation follows permissions, and notices survive only as catalogue keys.
 */
import { describe, expect, it } from 'vitest';
import { renderToString } from 'preact-render-to-string';
import { h } from 'preact';
import { Shell, AuthShell } from '../../src/ui/layout.js';
import { renderDocument } from '../../src/ui/render.js';
import { Field, ErrorSummary } from '../../src/ui/components/form.js';
import { Table, withQuery, pageWindow } from '../../src/ui/components/table.js';
import { Dialog } from '../../src/ui/components/dialog.js';
import { Tabs, TabPanel } from '../../src/ui/components/tabs.js';
import { EmptyState, StatTiles, PageHeader, formatCount, Badge } from '../../src/ui/components/misc.js';
import { NoticeMessage, NoticeBox } from '../../src/ui/components/notice.js';
import { LoginView, SetupView, TwoFactorView, ForgotPasswordView, ResetPasswordView } from '../../src/ui/views/auth.js';
import { ErrorView, NotFoundView } from '../../src/ui/views/error.js';
import { visibleNavigation, currentEntry, NAVIGATION } from '../../src/ui/nav.js';
import { decodeNotice, encodeNotice } from '../../src/ui/notice.js';
import { adminCsp, ADMIN_CSP } from '../../src/ui/csp.js';
import { isLocalPath, safeNext } from '../../src/ui/pages.js';
import { trustedHtml } from '../../src/ui/raw.js';
import { HOSTILE, expectCspSafe, expectSafeMarkup, makeContext, makePrincipal } from '../helpers/ui.js';

const r = (node: preact.VNode) => renderToString(node);

describe('escaping and CSP-safe markup', () => {
  it('the shell escapes the principal, site and path', () => {
    const p = makePrincipal(['lists:get_all'], { name: HOSTILE, username: HOSTILE, session: { id: 's', csrf: HOSTILE } });
    const ctx = makeContext(p, '/admin/lists', { url: `/admin/lists?q=${HOSTILE}`, site: { name: HOSTILE, logoUrl: `https://cdn.example/${HOSTILE}` }, notice: { kind: 'success', key: 'globals.messages.created', params: { name: HOSTILE } } });
    const html = renderDocument(h(Shell, { ctx, title: HOSTILE, children: h('p', null, HOSTILE) }) as preact.VNode);
    expectSafeMarkup(html);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<meta name="csrf-token" content="&lt;script>alert(1)&lt;/script>&quot;\'&amp;&lt;b>bold&lt;/b>"/>');
  });

  it('the sign-in frame escapes too', () => {
    const ctx = { ...makeContext(makePrincipal([])), principal: null, site: { name: HOSTILE, logoUrl: null } };
    expectSafeMarkup(renderDocument(h(AuthShell, { ctx, title: HOSTILE, children: h('p', null, HOSTILE) }) as preact.VNode));
  });

  it('every sign-in view escapes every prop', () => {
    const views = [
      LoginView({ csrf: HOSTILE, next: HOSTILE, username: HOSTILE, error: HOSTILE, oidc: { name: HOSTILE, action: `/auth/oidc?${HOSTILE}` } }),
      SetupView({ csrf: HOSTILE, email: HOSTILE, username: HOSTILE, errors: { email: HOSTILE, username: HOSTILE, password: HOSTILE, password2: HOSTILE } }),
      TwoFactorView({ csrf: HOSTILE, next: HOSTILE, error: HOSTILE }),
      ForgotPasswordView({ csrf: HOSTILE, email: HOSTILE, error: HOSTILE }),
      ForgotPasswordView({ csrf: HOSTILE, sent: true }),
      ResetPasswordView({ csrf: HOSTILE, token: HOSTILE, email: HOSTILE, errors: { token: HOSTILE, password: HOSTILE, password2: HOSTILE } }),
      ErrorView({ status: 400, message: HOSTILE }),
      NotFoundView(),
    ];
    for (const v of views) expectSafeMarkup(r(v.body));
  });

  it('components escape every prop', () => {
    const rows = [{ id: 1, name: HOSTILE }];
    const parts = [
      h(Field, { name: 'x', label: HOSTILE, value: HOSTILE, hint: HOSTILE, error: HOSTILE, placeholder: HOSTILE }),
      h(Field, { name: 'x', label: HOSTILE, type: 'textarea', value: HOSTILE, error: HOSTILE }),
      h(Field, { name: 'x', label: HOSTILE, type: 'select', value: HOSTILE, options: [{ value: HOSTILE, label: HOSTILE }] }),
      h(Field, { name: 'x', label: HOSTILE, type: 'checkbox', value: true, error: HOSTILE }),
      h(ErrorSummary, { errors: { x: HOSTILE }, labels: { x: HOSTILE } }),
      h(Table<{ id: number; name: string }>, {
        caption: HOSTILE, rows, rowKey: (x) => x.id, path: '/admin/lists', query: { query: HOSTILE },
        columns: [{ key: 'name', label: HOSTILE, sortable: true, cell: (x) => x.name }],
        sort: { by: 'name', order: 'asc' }, paging: { page: 2, perPage: 1, total: 3 },
        select: { form: 'bulk', value: (x) => x.name, label: (x) => x.name, allCy: 'select-all' },
      }),
      h(Dialog, { id: 'd', title: HOSTILE, children: HOSTILE }),
      h(Tabs, { id: 't', label: HOSTILE, tabs: [{ id: 'a', label: HOSTILE, href: `?tab=${HOSTILE}` }], selected: 'a', inline: true }),
      h(TabPanel, { tabsId: 't', id: 'a', selected: true, children: HOSTILE }),
      h(EmptyState, { message: HOSTILE }),
      h(StatTiles, { tiles: [{ label: HOSTILE, value: 3, cy: 'lists', href: '/admin/lists', details: [{ label: HOSTILE, value: 1 }] }] }),
      h(PageHeader, { title: HOSTILE, count: 3 }),
      h(NoticeMessage, { kind: 'error', children: HOSTILE }),
      h(NoticeBox, { notice: { kind: 'success', key: 'globals.messages.deleted', params: { name: HOSTILE } } }),
      h(Badge, { tone: 'x', children: HOSTILE }),
    ];
    for (const part of parts) expectSafeMarkup(r(part as preact.VNode));
  });

  it('the one raw helper is the only way around escaping', () => {
    expect(r(trustedHtml('<b>ok</b>', 'generated-by-mailroom'))).toBe('<span><b>ok</b></span>');
  });

  it('the CSP forbids inline code and allows only the logo origin besides self', () => {
    expect(ADMIN_CSP).toBe("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'");
    expect(adminCsp(['https://cdn.example', "'unsafe-inline'", 'https://x; script-src *'])).toContain("img-src 'self' data: https://cdn.example;");
    expect(adminCsp(["'unsafe-inline'"])).not.toContain('unsafe');
  });
});

describe('form fields', () => {
  it('tie hint and error to the input and flag it invalid', () => {
    const html = r(h(Field, { name: 'email', label: 'E-mail', type: 'email', value: 'a@b', hint: 'Your address', error: 'Not valid', required: true, cy: 'email' }) as preact.VNode);
    expect(html).toContain('<label for="f-email">');
    expect(html).toMatch(/<input id="f-email" name="email" required aria-describedby="f-email-hint f-email-error" aria-invalid="true" data-cy="email" type="email" value="a@b"/u);
    expect(html).toContain('id="f-email-error"');
    expect(html).toContain('Not valid');
  });

  it('never send a password back', () => {
    expect(r(h(Field, { name: 'password', label: 'P', type: 'password', value: 'secret' }) as preact.VNode)).not.toContain('secret');
  });
});

describe('tables', () => {
  it('link sorts and pages keeping the filters', () => {
    expect(withQuery('/admin/lists', { query: 'a b', page: '3' }, { order_by: 'name', order: 'asc', page: undefined })).toBe('/admin/lists?order=asc&order_by=name&query=a+b');
    expect(pageWindow(1, 3)).toEqual([1, 2, 3]);
    expect(pageWindow(50, 100)).toEqual([45, 46, 47, 48, 49, 50, 51, 52, 53, 54]);
    expect(pageWindow(100, 100)).toEqual([91, 92, 93, 94, 95, 96, 97, 98, 99, 100]);
  });

  it('mark the active sort, offer select-all-matching only across pages, and show the empty state', () => {
    const base = { caption: 'Lists', rowKey: (x: { id: number }) => x.id, path: '/admin/lists', columns: [{ key: 'id', label: 'ID', sortable: true, cell: (x: { id: number }) => x.id }], select: { form: 'bulk', value: (x: { id: number }) => x.id, label: () => 'pick', allCy: 'select-all-lists' } };
    const many = r(h(Table<{ id: number }>, { ...base, rows: [{ id: 1 }], sort: { by: 'id', order: 'asc' }, paging: { page: 1, perPage: 1, total: 2 } }) as preact.VNode);
    expect(many).toContain('aria-sort="ascending"');
    expect(many).toContain('href="/admin/lists?order=desc&amp;order_by=id"');
    expect(many).toContain('data-cy="select-all-lists"');
    expect(many).toContain('Select all 2 matching');
    expect(many).toContain('aria-current="page"');
    const one = r(h(Table<{ id: number }>, { ...base, rows: [{ id: 1 }], paging: { page: 1, perPage: 20, total: 1 } }) as preact.VNode);
    expect(one).not.toContain('select-all-lists');
    expect(one).not.toContain('class="pager"');
    expect(r(h(Table<{ id: number }>, { ...base, rows: [], empty: h(EmptyState, {}) }) as preact.VNode)).toContain('Nothing here yet.');
  });
});

describe('navigation', () => {
  it('shows only what the principal may open, with listmonk’s data-cy names and URLs', () => {
    const limited = makePrincipal(['subscribers:get', 'campaigns:get']);
    const groups = visibleNavigation(limited);
    expect(groups.map((g) => g.id)).toEqual(['dashboard', 'lists', 'subscribers', 'campaigns']);
    expect(groups.find((g) => g.id === 'subscribers')?.items.map((i) => i.cy)).toEqual(['all-subscribers']);
    expect(groups.find((g) => g.id === 'campaigns')?.items.map((i) => i.url)).toEqual(['/admin/campaigns']);
    const admin = visibleNavigation(makePrincipal([], { userRoleId: 1 }));
    expect(admin.flatMap((g) => g.items.map((i) => i.cy))).toEqual(['all-lists', 'forms', 'all-subscribers', 'import', 'bounces', 'all-campaigns', 'new-campaign', 'media', 'templates', 'analytics', 'users', 'userRoles', 'listRoles', 'audit', 'all-settings', 'logs', 'maintenance']);
    expect(NAVIGATION.flatMap((g) => g.items).every((i) => i.url.startsWith('/admin/'))).toBe(true);
  });

  it('renders gated links only and marks the current page', () => {
    const ctx = makeContext(makePrincipal(['settings:get']), '/admin/settings/logs');
    const html = renderDocument(h(Shell, { ctx, title: 'Logs', children: 'x' }) as preact.VNode);
    expect(html).toContain('data-cy="logs" aria-current="page"');
    expect(html).not.toContain('data-cy="maintenance"');
    expect(html).not.toContain('data-cy="users"');
    expect(html).toContain('<details class="nav-group" name="sidebar-nav" data-cy="settings" open>');
    expect(html).toContain('action="/admin/logout"');
    expect(html).toContain('name="_csrf" value="csrf-token-123"');
    expect(html).toContain('href="/admin/user/profile"');
    expect(html).toContain('<a class="skip-link" href="#main">');
    expectCspSafe(html);
  });

  it('finds the current entry for sub-pages', () => {
    expect(currentEntry('/admin')).toBe('dashboard');
    expect(currentEntry('/admin/lists/12')).toBe('lists.all');
    expect(currentEntry('/admin/lists/forms')).toBe('lists.forms');
    expect(currentEntry('/admin/users/roles/lists/3')).toBe('users.listRoles');
    expect(currentEntry('/admin/users/roles/users')).toBe('users.userRoles');
    expect(currentEntry('/admin/users/5')).toBe('users.users');
    expect(currentEntry('/elsewhere')).toBeNull();
  });
});

describe('notices and redirects', () => {
  it('round-trip a catalogue key and drop anything else', () => {
    const n = { kind: 'success' as const, key: 'globals.messages.created', params: { name: 'Weekly' } };
    expect(decodeNotice(encodeNotice(n))).toEqual(n);
    expect(decodeNotice(encodeNotice({ kind: 'success', key: 'not.a.key' }))).toBeNull();
    expect(decodeNotice(Buffer.from(JSON.stringify(['evil', 'globals.messages.created', {}])).toString('base64url'))).toBeNull();
    expect(decodeNotice('%%%')).toBeNull();
    expect(decodeNotice(encodeNotice({ kind: 'info', key: 'globals.messages.created', params: { name: 'x'.repeat(500) } }))?.params?.name).toHaveLength(200);
  });

  it('accept only local /admin targets', () => {
    expect(isLocalPath('/admin/lists')).toBe(true);
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example', 'javascript:alert(1)', '/admin\n']) expect(isLocalPath(bad)).toBe(false);
    expect(safeNext('/admin/lists?page=2')).toBe('/admin/lists?page=2');
    expect(safeNext('/api/settings')).toBe('/admin');
    expect(safeNext('//evil.example/admin')).toBe('/admin');
    expect(safeNext(undefined)).toBe('/admin');
  });

  it('formats dashboard numbers as listmonk does', () => {
    expect(formatCount(9999)).toBe('9,999');
    expect(formatCount(12345)).toBe('12.35k');
    expect(formatCount(1_234_567)).toBe('1.23m');
    expect(formatCount(2_000_000_000)).toBe('2b');
  });
});
