/**
 * The roles and audit log views rendered without a server (conventions §13): hostile names come out
 * escaped and the markup is CSP-safe; the matrix has a checkbox per permission of PERMISSION_GROUPS,
 * labelled, ticked as given, disabled when read-only; errors sit beside their field; list rows keep
 * their choices; the audit table pages with its filters; the navigation shows the audit log to
 * `users:get` only.
 */
import { describe, expect, it } from 'vitest';
import { renderToString } from 'preact-render-to-string';
import { PERMISSIONS } from '../../src/http/access.js';
import { ListRoleFormView, ListRolesView } from '../../src/modules/roles/views/list-roles.js';
import { NEW_ROLE_PERMISSIONS, UserRoleFormView, UserRolesView } from '../../src/modules/roles/views/user-roles.js';
import { AuditLogView } from '../../src/modules/audit/views/audit-log.js';
import { postedRows } from '../../src/modules/roles/pages.js';
import { auditFilters } from '../../src/modules/audit/pages.js';
import { currentEntry, visibleNavigation } from '../../src/ui/nav.js';
import { HOSTILE, expectSafeMarkup, makePrincipal } from '../helpers/ui.js';

const now = '2026-11-28T10:30:00.000Z';

describe('user role views', () => {
  it('the table escapes names, marks role 1 and counts permissions', () => {
    const html = renderToString(
      <UserRolesView canManage roles={[{ id: 1, name: 'Super Admin', type: 'user', permissions: [], created_at: now, updated_at: now }, { id: 2, name: HOSTILE, type: 'user', permissions: ['lists:get_all', 'campaigns:get'], created_at: now, updated_at: now }]} />,
    );
    expectSafeMarkup(html);
    expect(html).toContain(`${PERMISSIONS.length} of ${PERMISSIONS.length}`);
    expect(html).toContain(`2 of ${PERMISSIONS.length}`);
    expect(html).toContain('href="/admin/users/roles/2"');
    expect(html).toContain('data-cy="btn-new"');
    expect(renderToString(<UserRolesView canManage={false} roles={[]} />)).not.toContain('data-cy="btn-new"');
  });

  it('the matrix: one labelled checkbox per permission, ticked as given; errors beside the fields', () => {
    const html = renderToString(<UserRoleFormView csrf={HOSTILE} role={{ id: 5, name: HOSTILE }} name={HOSTILE} permissions={new Set(['campaigns:send'])} editable errors={{ name: HOSTILE, permissions: 'unknown permission "x"' }} />);
    expectSafeMarkup(html);
    for (const p of PERMISSIONS) {
      const id = `perm-${p.replace(/[^a-z0-9]+/gu, '-')}`;
      expect(html).toContain(`id="${id}"`);
      expect(html).toContain(`for="${id}"`);
    }
    expect(html.match(/type="checkbox"[^>]*checked/gu)?.length).toBe(1);
    expect(html).toMatch(/value="campaigns:send"[^>]*checked/u);
    expect(html).toContain('id="f-name-error"');
    expect(html).toContain('id="f-permissions-error"');
    expect(html).toContain('aria-describedby="f-permissions-error"');
    expect(html).toContain('action="/admin/users/roles/5"');
    expect(html).toContain('data-cy="btn-delete"');
    expect(html).toMatch(/high risk/u);
  });

  it('read-only: role 1 shows every permission ticked and disabled, with the reason; no Save, no Delete', () => {
    const html = renderToString(<UserRoleFormView csrf="c" role={{ id: 1, name: 'Super Admin' }} name="Super Admin" permissions={new Set()} editable={false} readOnlyReason="super-admin" />);
    expect(html.match(/type="checkbox"[^>]*checked[^>]*disabled/gu)?.length).toBe(PERMISSIONS.length);
    expect(html).toContain('data-cy="read-only"');
    expect(html).not.toContain('btn-save');
    expect(html).not.toContain('btn-delete');
  });

  it('new roles start with listmonk defaults: no users, lists or settings groups, no SQL queries', () => {
    expect(NEW_ROLE_PERMISSIONS).toContain('campaigns:get');
    expect(NEW_ROLE_PERMISSIONS).toContain('subscribers:get');
    for (const p of ['users:manage', 'roles:get', 'lists:get_all', 'settings:get', 'subscribers:sql_query']) expect(NEW_ROLE_PERMISSIONS).not.toContain(p);
  });
});

describe('list role views', () => {
  const lists = [{ id: 3, name: HOSTILE }, { id: 4, name: 'Offers' }];

  it('the table names each role\'s lists', () => {
    const html = renderToString(<ListRolesView canManage roles={[{ id: 9, name: HOSTILE, created_at: now, updated_at: now, lists: [{ id: 3, name: 'News', permissions: ['list:get'] }, { id: 4, name: 'Offers', permissions: ['list:manage'] }] }]} />);
    expectSafeMarkup(html);
    expect(html).toContain('News, Offers');
  });

  it('rows keep their list and ticks; a row error sits beside its picker; rows can be added and removed', () => {
    const html = renderToString(<ListRoleFormView csrf="c" role={{ id: 9, name: 'Team' }} name="Team" lists={lists} editable rows={[{ listId: '4', get: true, manage: false }, { listId: '', get: true, manage: true }]} errors={{ 'row.0': HOSTILE }} />);
    expectSafeMarkup(html);
    expect(html).toMatch(/name="list_0"[\s\S]*<option value="4" selected>Offers/u);
    expect(html).toMatch(/name="get_0"[^>]*checked/u);
    expect(html).not.toMatch(/name="manage_0"[^>]*checked/u);
    expect(html).toContain('id="f-list-0-error"');
    expect(html).toContain('aria-describedby="f-list-0-error"');
    expect(html).toContain('name="rows" value="2"');
    expect(html).toContain('hx-post="/admin/users/roles/lists/rows"');
    expect(html).toContain('name="remove" value="1"');
    expect(html).toContain('name="role_id" value="9"');
  });

  it('read-only: disabled controls, no add/remove/save', () => {
    const html = renderToString(<ListRoleFormView csrf="c" role={{ id: 9, name: 'Team' }} name="Team" lists={lists} editable={false} rows={[{ listId: '4', get: true, manage: true }]} />);
    expect(html).not.toContain('btn-add-list');
    expect(html).not.toContain('btn-save');
    expect(html).toMatch(/<select[^>]*disabled/u);
  });

  it('postedRows reads the indexed fields, bounded by `rows`', () => {
    expect(postedRows({ rows: '2', list_0: '4', get_0: 'true', list_1: '', manage_1: 'true', list_2: '9' })).toEqual([
      { listId: '4', get: true, manage: false },
      { listId: '', get: false, manage: true },
    ]);
    expect(postedRows({ rows: '-3' })).toEqual([]);
    expect(postedRows({ rows: '99999' }).length).toBe(500);
  });
});

describe('audit log view', () => {
  const entry = { id: 1, created_at: now, user_id: 2, username: HOSTILE, action: 'roles.create_user_role', resource_type: 'roles', resource_id: '7', method: 'POST', path: '/admin/users/roles', status: 303, ip: '127.0.0.1' };
  const filters = { username: HOSTILE, action: 'roles.create_user_role', resource_type: '', resource_id: '', from: '2026-11-01', to: '' };

  it('shows entries with time, user, action, resource and outcome; the pager keeps the filters', () => {
    const html = renderToString(<AuditLogView filters={filters} entries={[entry, { ...entry, id: 2, status: 403, resource_id: null }]} total={45} page={2} perPage={20} />);
    expectSafeMarkup(html);
    expect(html).toContain('2026-11-28 10:30:00 UTC');
    expect(html).toContain('roles 7');
    expect(html).toContain('Refused (403)');
    expect(html).toContain('page=3');
    expect(html).toContain('from=2026-11-01');
    expect(html).toContain('Clear filters');
  });

  it('a filter error sits beside its field; no entries shows the empty state', () => {
    const html = renderToString(<AuditLogView filters={filters} entries={[]} total={0} page={1} perPage={20} errors={{ from: 'bad' }} />);
    expect(html).toContain('id="f-from-error"');
    expect(html).toContain('No entries match these filters.');
  });

  it('auditFilters trims and bounds the query', () => {
    expect(auditFilters({ username: '  ann ', action: 'x'.repeat(300), page: '2' })).toEqual({ username: 'ann', action: 'x'.repeat(200), resource_type: '', resource_id: '', from: '', to: '' });
  });
});

describe('navigation', () => {
  it('shows the audit log with users:get only, and marks the roles pages current', () => {
    const items = (perms: Parameters<typeof makePrincipal>[0]) => visibleNavigation(makePrincipal(perms)).flatMap((g) => g.items.map((i) => i.cy));
    expect(items(['users:get'])).toContain('audit');
    expect(items(['roles:get'])).not.toContain('audit');
    expect(currentEntry('/admin/users/audit')).toBe('users.audit');
    expect(currentEntry('/admin/users/roles')).toBe('users.userRoles');
    expect(currentEntry('/admin/users/roles/7')).toBe('users.userRoles');
    expect(currentEntry('/admin/users/roles/lists/7')).toBe('users.listRoles');
  });
});
