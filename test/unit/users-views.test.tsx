/**
 * The users pages' views rendered to strings, without a server (src/modules/users/views/*): hostile
 * values come out escaped and CSP-safe, the fields listmonk's form has are there with their data-cy
 * hooks, errors stand beside their fields, Save / New / Delete are absent without `users:manage`, an
 * API user's form has no e-mail or password, and the form failure mapping of pages.tsx.
 */
import { describe, expect, it } from 'vitest';
import { renderToString } from 'preact-render-to-string';
import { ConflictError, BadRequestError, FieldError, NotFoundError } from '../../src/errors.js';
import { formFailure } from '../../src/modules/users/pages.js';
import type { User } from '../../src/modules/users/schemas.js';
import { ProfileView } from '../../src/modules/users/views/profile.js';
import { formValues, TokenView, UserFormView, type UserFormViewProps } from '../../src/modules/users/views/user-form.js';
import { userMatches, UsersView } from '../../src/modules/users/views/users.js';
import { HOSTILE, expectSafeMarkup, makeContext, makePrincipal } from '../helpers/ui.js';

const r = (node: preact.VNode) => renderToString(node);

function user(over: Partial<User> = {}): User {
  return {
    id: 5, created_at: '2026-11-01T10:20:00.000Z', updated_at: '2026-11-02T10:20:00.000Z', username: 'ada', password_login: true,
    email: 'ada@example.com', name: 'Ada', type: 'user', status: 'enabled', avatar: null, twofa_type: 'none', loggedin_at: null,
    user_role_id: 3, list_role_id: 4, user_role: { id: 3, name: 'Editors', permissions: ['lists:get_all'] },
    list_role: { id: 4, name: 'News team', lists: [] }, ...over,
  };
}
/** The roles the selects offer (only the fields the form reads). */
const roles = {
  userRoles: [{ id: 1, name: 'Super Admin', permissions: [] }, { id: 3, name: 'Editors', permissions: [] }] as unknown as UserFormViewProps['userRoles'],
  listRoles: [{ id: 4, name: 'News team', lists: [] }] as unknown as UserFormViewProps['listRoles'],
};
const manager = makeContext(makePrincipal(['users:get', 'users:manage']), '/admin/users');
const viewer = makeContext(makePrincipal(['users:get']), '/admin/users');
const hostile = user({ username: HOSTILE, name: HOSTILE, email: HOSTILE, user_role: { id: 3, name: HOSTILE, permissions: [] }, list_role: { id: 4, name: HOSTILE, lists: [] } });

describe('escaping', () => {
  it('the table, the form, the token page and the profile escape every value', () => {
    expectSafeMarkup(r(<UsersView ctx={manager} users={[hostile]} query={HOSTILE} total={1} />));
    expectSafeMarkup(r(<UserFormView ctx={manager} user={hostile} values={formValues(hostile)} {...roles} errors={{ username: HOSTILE }} formError={HOSTILE} />));
    expectSafeMarkup(r(<TokenView ctx={manager} user={hostile} token={HOSTILE} created />));
    expectSafeMarkup(r(<ProfileView ctx={manager} user={hostile} errors={{ name: HOSTILE }} formError={HOSTILE} />));
  });
});

describe('the users table', () => {
  it('shows every column and the listmonk hooks; actions only with users:manage', () => {
    const html = r(<UsersView ctx={manager} users={[user({ loggedin_at: '2026-11-20T08:05:00Z' }), user({ id: 6, username: 'robot', type: 'api', email: null, status: 'disabled', twofa_type: 'totp', list_role: null, list_role_id: null })]} query="" total={2} />);
    for (const text of ['User name', 'E-mail', 'Type', 'Roles', 'Status', '2FA', 'Last sign-in', 'Created']) expect(html).toContain(`>${text}</th>`);
    expect(html).toContain('href="/admin/users/5"');
    expect(html).toContain('<span class="cell-sub">Ada</span>'); // the name under the user name
    expect(html).toContain('List role: News team');
    expect(html).toContain('<time datetime="2026-11-20T08:05:00.000Z" title="2026-11-20 08:05 UTC" class="nowrap">2026-11-20</time>');
    expect(html).toContain('Never');
    expect(html).toContain('Disabled');
    for (const cy of ['btn-new', 'query', 'btn-query', 'btn-edit', 'btn-delete']) expect(html).toContain(`data-cy="${cy}"`);
    expect(html).toContain('name="_csrf" value="csrf-token-123"');
    const ro = r(<UsersView ctx={viewer} users={[user()]} query="" total={1} />);
    expect(ro).not.toContain('data-cy="btn-new"');
    expect(ro).not.toContain('data-cy="btn-delete"');
    expect(ro).toContain('data-cy="btn-edit"');
  });

  it('search matches user name, name and e-mail, case-insensitively', () => {
    expect(userMatches(user(), 'ADA@')).toBe(true);
    expect(userMatches(user(), '')).toBe(true);
    expect(userMatches(user({ email: null }), 'example')).toBe(false);
  });
});

describe('the user form', () => {
  it('a new user: type, status, user name, name, e-mail, password login, passwords and both roles', () => {
    const html = r(<UserFormView ctx={manager} user={null} values={formValues(null)} {...roles} />);
    for (const name of ['type', 'status', 'username', 'name', 'email', 'password_login', 'password', 'password2', 'user_role', 'list_role', '_csrf']) expect(html).toContain(`name="${name}"`);
    expect(html).toContain('action="/admin/users"');
    expect(html).toContain('data-cy="btn-save"');
    expect(html).toContain('Choose a user role.');
    expect(html).not.toContain('data-cy="btn-delete"');
  });

  it('editing: the type is fixed, values are filled, Delete is offered; errors sit beside their fields', () => {
    const html = r(<UserFormView ctx={manager} user={user()} values={formValues(user())} {...roles} errors={{ email: 'is not valid' }} />);
    expect(html).not.toContain('name="type"');
    expect(html).toContain('action="/admin/users/5"');
    expect(html).toContain('value="ada@example.com"');
    expect(html).toMatch(/<option value="3" selected[^>]*>Editors/u);
    expect(html).toMatch(/<option value="4" selected[^>]*>News team/u);
    expect(html).toMatch(/aria-describedby="f-email-error"[^>]*aria-invalid="true"/u);
    expect(html).toMatch(/<p class="field-error" id="f-email-error">.*is not valid<\/p>/u);
    expect(html).toContain('action="/admin/users/5/delete"');
    expect(html).not.toContain('regenerate-token');
  });

  it('an API user: no e-mail or password fields, a new-token action', () => {
    const api = user({ type: 'api', email: null, password_login: false });
    const html = r(<UserFormView ctx={manager} user={api} values={formValues(api)} {...roles} />);
    expect(html).not.toContain('name="email"');
    expect(html).not.toContain('name="password"');
    expect(html).toContain('action="/admin/users/5/regenerate-token"');
  });

  it('without users:manage: read-only (fields disabled), no Save, Delete or token action', () => {
    const api = user({ type: 'api', email: null });
    const html = r(<UserFormView ctx={viewer} user={api} values={formValues(api)} {...roles} />);
    expect(html).not.toContain('data-cy="btn-save"');
    expect(html).not.toContain('/delete"');
    expect(html).not.toContain('regenerate-token');
    expect(html).toContain('<fieldset class="form-section" disabled');
    expect(html).toContain('data-cy="read-only"');
  });

  it('the token page shows the token once, with how to use it', () => {
    const html = r(<TokenView ctx={manager} user={user({ type: 'api', username: 'robot' })} token="T0KEN" created />);
    expect(html).toContain('value="T0KEN"');
    expect(html).toContain('Authorization: token robot:T0KEN');
    expect(html).toContain('shown only this once');
  });
});

describe('the profile', () => {
  it('a password user: e-mail, name, password and repeat, the role badge, the 2FA set-up button', () => {
    const html = r(<ProfileView ctx={manager} user={user()} />);
    for (const name of ['email', 'name', 'password', 'password2', '_csrf']) expect(html).toContain(`name="${name}"`);
    expect(html).toContain('@ada');
    expect(html).toContain('Editors');
    expect(html).toContain('data-cy="btn-twofa-setup"');
    expect(html).toContain('data-cy="btn-save"');
  });

  it('without password login the e-mail is read-only and there is no password; an API user has neither', () => {
    const sso = r(<ProfileView ctx={manager} user={user({ password_login: false })} />);
    expect(sso).toMatch(/name="email"[^>]*disabled|disabled[^>]*name="email"/u);
    expect(sso).not.toContain('name="password"');
    const api = r(<ProfileView ctx={manager} user={user({ type: 'api', email: null, password_login: false })} />);
    expect(api).not.toContain('name="email"');
    expect(api).not.toContain('name="password"');
    expect(api).not.toContain('data-cy="twofa"');
  });
});

describe('formFailure (pages.tsx)', () => {
  const fields = new Set(['username', 'user_role', 'email']);
  it('puts a FieldError or a 409 naming a field beside it, other 4xx above the form, and lets 404/5xx through', () => {
    expect(formFailure(new FieldError('username', 'is too short'), fields)).toEqual({ errors: { username: 'is too short' }, formError: null });
    expect(formFailure(new FieldError('user_role_id', 'no user role with id 9'), fields)).toEqual({ errors: { user_role: 'no user role with id 9' }, formError: null });
    expect(formFailure(new ConflictError('email: a user with this e-mail already exists'), fields)).toEqual({ errors: { email: 'a user with this e-mail already exists' }, formError: null });
    expect(formFailure(new FieldError('regenerate_token', 'only API users have a token'), fields)).toEqual({ errors: {}, formError: 'regenerate_token: only API users have a token' });
    expect(formFailure(new BadRequestError('the last enabled Super Admin cannot be deleted'), fields)).toEqual({ errors: {}, formError: 'the last enabled Super Admin cannot be deleted' });
    expect(formFailure(new NotFoundError('user 9 not found'), fields)).toBeNull();
    expect(formFailure(new Error('boom'), fields)).toBeNull();
  });
});
