/**
 * The roles admin pages (issue 16 "Users, user roles, list roles"; listmonk admin UI map rows 16–19,
 * §1.15): v7's URLs, plus a redirect from v6's `/admin/users/roles/users`. Reading needs `roles:get`,
 * every form post `roles:manage` (the route table refuses without it; the views hide what it refuses).
 * Handlers call the RoleService, as the API does; forms post, redirect (303) with a notice, or re-render
 * with the errors beside their fields (422; a refused delete keeps the service's status).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, ConflictError, FieldError, NotFoundError } from '../../errors.js';
import { can, PERMISSIONS, SUPER_ADMIN_ROLE_ID } from '../../http/access.js';
import type { ListService } from '../lists/service.js';
import { noteAuditResource } from '../audit/hook.js';
import type { FormErrors } from '../../ui/components/form.js';
import type { PageContext } from '../../ui/context.js';
import { t } from '../../ui/i18n.js';
import { fragment, isHtmx, page, redirect, registerPages, view, type PageResult } from '../../ui/pages.js';
import type { RoleService } from './service.js';
import { BLANK_ROWS, ListRoleFormView, ListRows, ListRolesView, type ListChoice, type ListRow } from './views/list-roles.js';
import { NEW_ROLE_PERMISSIONS, UserRoleFormView, UserRolesView } from './views/user-roles.js';

/** What the roles pages need. */
export interface RolePageDeps {
  roles: RoleService;
  /** For the list picker of the list-role form (every list). */
  lists: ListService;
}

type Form = Record<string, string | string[] | undefined>;

/** The form body (formbody: a repeated name becomes an array). */
const formOf = (request: FastifyRequest): Form => (request.body !== null && typeof request.body === 'object' ? (request.body as Form) : {});
/** One value of `name` ('' when absent; the first when repeated). */
const one = (f: Form, name: string): string => {
  const v = f[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? '') : '';
};
/** Every value of `name`. */
const all = (f: Form, name: string): string[] => {
  const v = f[name];
  return typeof v === 'string' ? [v] : Array.isArray(v) ? v : [];
};

/** The `:id` of a role page: a positive integer, else 404 (v7 also parses `/roles/users` as an id). */
function roleId(request: FastifyRequest): number {
  const raw = (request.params as { id?: string }).id ?? '';
  const id = /^[1-9]\d{0,9}$/u.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id > 2_147_483_647) throw new NotFoundError(t('roles.notFound'));
  return id;
}

/** A service error as errors beside fields (FieldError → its field, a duplicate name → `name`); null for others. */
function fieldErrors(err: unknown): Record<string, string> | null {
  if (err instanceof FieldError) return { [err.field]: err.message.slice(err.field.length + 2) };
  if (err instanceof ConflictError && err.message.startsWith('name:')) return { name: t('roles.nameTaken') };
  return null;
}

/** Notice of a saved or created role. */
const saved = (key: 'globals.messages.created' | 'globals.messages.updated' | 'globals.messages.deleted', name: string) => ({ kind: 'success' as const, key, params: { name } });

// ---------- user roles ----------

async function userRolesIndex(deps: RolePageDeps, ctx: PageContext): Promise<PageResult> {
  const roles = await deps.roles.userRoles();
  return view(t('menu.userRoles'), <UserRolesView roles={roles} canManage={can(ctx.principal, 'roles:manage')} />);
}

async function findUserRole(deps: RolePageDeps, id: number) {
  const role = (await deps.roles.userRoles()).find((r) => r.id === id);
  if (role === undefined) throw new NotFoundError(t('roles.notFound'));
  return role;
}

/** The user-role form for `role` (null: new) with what to show in it. */
function userRoleForm(ctx: PageContext, role: { id: number; name: string } | null, name: string, permissions: Iterable<string>, errors: FormErrors = {}, status = 200): PageResult {
  const manage = can(ctx.principal, 'roles:manage');
  const superAdmin = role?.id === SUPER_ADMIN_ROLE_ID;
  const editable = manage && !superAdmin;
  const body = <UserRoleFormView csrf={ctx.csrf} role={role} name={name} permissions={new Set(permissions)} editable={editable} canClone={manage} readOnlyReason={superAdmin ? 'super-admin' : 'no-permission'} errors={errors} />;
  return view(role === null ? t('roles.newUserRole') : role.name, body, { status });
}

async function saveUserRole(deps: RolePageDeps, request: FastifyRequest, ctx: PageContext, id: number | null): Promise<PageResult> {
  const f = formOf(request);
  const name = one(f, 'name');
  const permissions = all(f, 'permissions');
  const role = id === null ? null : await findUserRole(deps, id);
  if (name.trim() === '') return userRoleForm(ctx, role, name, permissions, { name: t('roles.nameRequired') }, 422);
  try {
    const done = id === null ? await deps.roles.createUserRole({ name, permissions }) : await deps.roles.updateUserRole(id, { name, permissions });
    if (id === null) noteAuditResource(request, done.id);
    return redirect('/admin/users/roles', saved(id === null ? 'globals.messages.created' : 'globals.messages.updated', done.name));
  } catch (err) {
    const errors = fieldErrors(err);
    if (errors === null) throw err;
    return userRoleForm(ctx, role, name, permissions, errors, 422);
  }
}

async function deleteUserRole(deps: RolePageDeps, request: FastifyRequest, ctx: PageContext): Promise<PageResult> {
  const id = roleId(request);
  const role = await findUserRole(deps, id);
  try {
    await deps.roles.delete(id);
  } catch (err) {
    // "role is in use" (or role 1): shown on the role's page, as an error beside the delete button.
    if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
    return userRoleForm(ctx, role, role.name, role.permissions, { role: err.message }, err.statusCode);
  }
  return redirect('/admin/users/roles', saved('globals.messages.deleted', role.name));
}

/**
 * Clone (listmonk's row action): a new user role "Copy of <name>" with the same permissions (role 1's
 * are every permission), then its page. A taken name is shown beside the original's name field.
 */
async function cloneUserRole(deps: RolePageDeps, request: FastifyRequest, ctx: PageContext): Promise<PageResult> {
  const role = await findUserRole(deps, roleId(request));
  const permissions = role.id === SUPER_ADMIN_ROLE_ID ? [...PERMISSIONS] : role.permissions;
  try {
    const done = await deps.roles.createUserRole({ name: t('roles.copyOf', { name: role.name }), permissions });
    noteAuditResource(request, done.id);
    return redirect(`/admin/users/roles/${done.id}`, saved('globals.messages.created', done.name));
  } catch (err) {
    const errors = fieldErrors(err);
    if (errors === null) throw err;
    return userRoleForm(ctx, role, role.name, role.permissions, { name: t('roles.copyTaken') }, 422);
  }
}

// ---------- list roles ----------

/** Rows past this many are ignored (a form cannot reasonably hold more). */
const MAX_ROWS = 500;

/** The rows a posted list-role form holds (`rows`, then `list_<i>`, `get_<i>`, `manage_<i>`). */
export function postedRows(f: Form): ListRow[] {
  const count = Math.min(MAX_ROWS, Math.max(0, Number.parseInt(one(f, 'rows'), 10) || 0));
  const rows: ListRow[] = [];
  for (let i = 0; i < count; i++) rows.push({ listId: one(f, `list_${i}`), get: one(f, `get_${i}`) === 'true', manage: one(f, `manage_${i}`) === 'true' });
  return rows;
}

const blankRow = (): ListRow => ({ listId: '', get: true, manage: true });

async function listChoices(deps: RolePageDeps): Promise<ListChoice[]> {
  const { results } = await deps.lists.query({ minimal: true });
  return results.map((l) => ({ id: l.id, name: l.name }));
}

async function findListRole(deps: RolePageDeps, id: number) {
  const role = (await deps.roles.listRoles()).find((r) => r.id === id);
  if (role === undefined) throw new NotFoundError(t('roles.notFound'));
  return role;
}

async function listRoleForm(deps: RolePageDeps, ctx: PageContext, role: { id: number; name: string } | null, name: string, rows: readonly ListRow[], errors: FormErrors = {}, status = 200): Promise<PageResult> {
  const body = <ListRoleFormView csrf={ctx.csrf} role={role} name={name} rows={rows} lists={await listChoices(deps)} editable={can(ctx.principal, 'roles:manage')} errors={errors} />;
  return view(role === null ? t('roles.newListRole') : role.name, body, { status });
}

async function saveListRole(deps: RolePageDeps, request: FastifyRequest, ctx: PageContext, id: number | null): Promise<PageResult> {
  const f = formOf(request);
  const name = one(f, 'name');
  const rows = postedRows(f);
  const role = id === null ? null : await findListRole(deps, id);
  const errors: Record<string, string> = {};
  if (name.trim() === '') errors.name = t('roles.nameRequired');
  // Rows with a list, in form order; `at[k]` is the form row of the service's `lists.<k>`.
  const at: number[] = [];
  const lists: { id: number; permissions: string[] }[] = [];
  rows.forEach((r, i) => {
    if (r.listId === '') return;
    if (!/^[1-9]\d{0,9}$/u.test(r.listId)) errors[`row.${i}`] = t('roles.listUnknown');
    else if (!r.get && !r.manage) errors[`row.${i}`] = t('roles.listRowPermsRequired');
    else {
      at.push(i);
      lists.push({ id: Number(r.listId), permissions: [...(r.get ? ['list:get'] : []), ...(r.manage ? ['list:manage'] : [])] });
    }
  });
  if (Object.keys(errors).length > 0) return listRoleForm(deps, ctx, role, name, rows, errors, 422);
  try {
    const done = id === null ? await deps.roles.createListRole({ name, lists }) : await deps.roles.updateListRole(id, { name, lists });
    if (id === null) noteAuditResource(request, done.id);
    return redirect('/admin/users/roles/lists', saved(id === null ? 'globals.messages.created' : 'globals.messages.updated', done.name));
  } catch (err) {
    const found = fieldErrors(err);
    if (found === null) throw err;
    const mapped: Record<string, string> = {};
    for (const [field, message] of Object.entries(found)) {
      const m = /^lists\.(\d+)\./u.exec(field);
      if (m !== null && at[Number(m[1])] !== undefined) mapped[`row.${at[Number(m[1])]}`] = message;
      else if (field === 'lists') {
        // "list <id> not found": beside the row that names it.
        const missing = /list (\d+) not found/u.exec(message)?.[1];
        const row = missing === undefined ? -1 : rows.findIndex((r) => r.listId === missing);
        mapped[row >= 0 ? `row.${row}` : 'lists'] = row >= 0 ? t('roles.listUnknown') : message;
      } else mapped[field] = message;
    }
    return listRoleForm(deps, ctx, role, name, rows, mapped, 422);
  }
}

/** "Add another list" / "Remove": the form again with a row more or less; nothing is saved. */
async function changeRows(deps: RolePageDeps, request: FastifyRequest, ctx: PageContext): Promise<PageResult> {
  const f = formOf(request);
  let rows = postedRows(f);
  const remove = Number.parseInt(one(f, 'remove'), 10);
  if (Number.isInteger(remove) && remove >= 0 && remove < rows.length) rows = rows.filter((_r, i) => i !== remove);
  if (one(f, 'add') !== '' && rows.length < MAX_ROWS) rows = [...rows, blankRow()];
  if (isHtmx(request)) return fragment(<ListRows rows={rows} lists={await listChoices(deps)} editable />);
  const idText = one(f, 'role_id');
  const role = /^[1-9]\d{0,9}$/u.test(idText) ? await findListRole(deps, Number(idText)) : null;
  return listRoleForm(deps, ctx, role, one(f, 'name'), rows);
}

async function deleteListRole(deps: RolePageDeps, request: FastifyRequest, ctx: PageContext): Promise<PageResult> {
  const id = roleId(request);
  const role = await findListRole(deps, id);
  try {
    await deps.roles.delete(id);
  } catch (err) {
    if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
    return listRoleForm(deps, ctx, role, role.name, role.lists.map((l) => ({ listId: String(l.id), get: l.permissions.includes('list:get'), manage: l.permissions.includes('list:manage') })), { role: err.message }, err.statusCode);
  }
  return redirect('/admin/users/roles/lists', saved('globals.messages.deleted', role.name));
}

/** Clone a list role: "Copy of <name>" with the same lists, then its page. */
async function cloneListRole(deps: RolePageDeps, request: FastifyRequest, ctx: PageContext): Promise<PageResult> {
  const role = await findListRole(deps, roleId(request));
  const rows = role.lists.map((l) => ({ listId: String(l.id), get: l.permissions.includes('list:get'), manage: l.permissions.includes('list:manage') }));
  try {
    const done = await deps.roles.createListRole({ name: t('roles.copyOf', { name: role.name }), lists: role.lists.map((l) => ({ id: l.id, permissions: l.permissions })) });
    noteAuditResource(request, done.id);
    return redirect(`/admin/users/roles/lists/${done.id}`, saved('globals.messages.created', done.name));
  } catch (err) {
    const errors = fieldErrors(err);
    if (errors === null) throw err;
    return listRoleForm(deps, ctx, role, role.name, rows, { name: t('roles.copyTaken') }, 422);
  }
}

/** Registers the roles pages. */
export function rolePages(app: FastifyInstance, deps: RolePageDeps): void {
  registerPages(app, [
    page('GET', '/admin/users/roles', 'roles:get', (_req, ctx) => userRolesIndex(deps, ctx)),
    page('GET', '/admin/users/roles/users', 'roles:get', () => redirect('/admin/users/roles')), // listmonk v6's URL
    page('GET', '/admin/users/roles/new', 'roles:manage', (_req, ctx) => userRoleForm(ctx, null, '', NEW_ROLE_PERMISSIONS)),
    page('POST', '/admin/users/roles', 'roles:manage', (req, ctx) => saveUserRole(deps, req, ctx, null)),
    page('GET', '/admin/users/roles/:id', 'roles:get', async (req, ctx) => {
      const role = await findUserRole(deps, roleId(req));
      return userRoleForm(ctx, role, role.name, role.permissions);
    }),
    page('POST', '/admin/users/roles/:id', 'roles:manage', (req, ctx) => saveUserRole(deps, req, ctx, roleId(req))),
    page('POST', '/admin/users/roles/:id/delete', 'roles:manage', (req, ctx) => deleteUserRole(deps, req, ctx)),
    page('POST', '/admin/users/roles/:id/clone', 'roles:manage', (req, ctx) => cloneUserRole(deps, req, ctx)),

    page('GET', '/admin/users/roles/lists', 'roles:get', async (_req, ctx) => view(t('menu.listRoles'), <ListRolesView roles={await deps.roles.listRoles()} canManage={can(ctx.principal, 'roles:manage')} />)),
    page('GET', '/admin/users/roles/lists/new', 'roles:manage', (_req, ctx) => listRoleForm(deps, ctx, null, '', Array.from({ length: BLANK_ROWS + 1 }, blankRow))),
    page('POST', '/admin/users/roles/lists', 'roles:manage', (req, ctx) => saveListRole(deps, req, ctx, null)),
    page('POST', '/admin/users/roles/lists/rows', 'roles:manage', (req, ctx) => changeRows(deps, req, ctx)),
    page('GET', '/admin/users/roles/lists/:id', 'roles:get', async (req, ctx) => {
      const role = await findListRole(deps, roleId(req));
      const rows = role.lists.map((l) => ({ listId: String(l.id), get: l.permissions.includes('list:get'), manage: l.permissions.includes('list:manage') }));
      return listRoleForm(deps, ctx, role, role.name, can(ctx.principal, 'roles:manage') ? [...rows, ...Array.from({ length: BLANK_ROWS }, blankRow)] : rows);
    }),
    page('POST', '/admin/users/roles/lists/:id', 'roles:manage', (req, ctx) => saveListRole(deps, req, ctx, roleId(req))),
    page('POST', '/admin/users/roles/lists/:id/delete', 'roles:manage', (req, ctx) => deleteListRole(deps, req, ctx)),
    page('POST', '/admin/users/roles/lists/:id/clone', 'roles:manage', (req, ctx) => cloneListRole(deps, req, ctx)),
  ]);
}
