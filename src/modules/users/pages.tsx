/**
 * The users admin pages (issue 16 "Users" and "profile"; listmonk admin UI map rows 14, 15, 20): the
 * route table first, one line each, then the handlers. Handlers call the accounts and roles services
 * (never the repo); forms POST → 303 → GET with a notice; a failed form re-renders (422) with the
 * service's FieldError beside its field, and a rule about the whole form (the last Super Admin) above
 * it. An API user's token is the one exception to POST → 303: it is rendered straight from the POST
 * that made it (TokenView), so it is never stored — not in a cookie, a URL or the database — and no
 * GET can show it again.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, ConflictError, FieldError, NotFoundError } from '../../errors.js';
import type { FormErrors } from '../../ui/components/form.js';
import type { PageContext } from '../../ui/context.js';
import { t } from '../../ui/i18n.js';
import { page, redirect, registerPages, view, type PageResult } from '../../ui/pages.js';
import { originOf } from '../auth/signin-routes.js';
import type { TwofaService } from '../auth/twofa.js';
import type { RoleService } from '../roles/service.js';
import type { AccountService, ProfileCaller } from './accounts.js';
import type { User, UserCreate, UserUpdate } from './schemas.js';
import { ProfileView, type ProfileValues } from './views/profile.js';
import { formValues, TokenView, UserFormView, userFormTitle, type UserFormValues } from './views/user-form.js';
import { userMatches, UsersView } from './views/users.js';

/** What the users pages need. */
export interface UserPageDeps {
  accounts: AccountService;
  roles: RoleService;
  /** TOTP enrolment for the profile page's two-step sign-in box. */
  twofa: TwofaService;
}

/** Registers the users and profile pages (after installUi). */
export function userPages(app: FastifyInstance, deps: UserPageDeps): void {
  const on = handlers(deps);
  registerPages(app, [
    page('GET', '/admin/users', 'users:get', on.list),
    page('GET', '/admin/users/new', 'users:get', on.newForm),
    page('POST', '/admin/users', 'users:manage', on.create),
    page('GET', '/admin/users/:id', 'users:get', on.editForm),
    page('POST', '/admin/users/:id', 'users:manage', on.save),
    page('POST', '/admin/users/:id/delete', 'users:manage', on.remove),
    page('POST', '/admin/users/:id/regenerate-token', 'users:manage', on.regenerateToken),
    page('GET', '/admin/user/profile', 'authenticated', on.profile),
    page('POST', '/admin/user/profile', 'authenticated', on.saveProfile),
    page('POST', '/admin/user/profile/twofa', 'authenticated', on.enableTwofa),
    page('POST', '/admin/user/profile/twofa/disable', 'authenticated', on.disableTwofa),
  ]);
}

type Form = Record<string, unknown>;
/** A posted form field as text ('' when absent or not text). */
const field = (body: Form, name: string): string => (typeof body[name] === 'string' ? (body[name] as string) : '');
/** The posted body (formbody gives an object; anything else counts as empty). */
const formOf = (request: FastifyRequest): Form => (request.body !== null && typeof request.body === 'object' ? (request.body as Form) : {});

/** The `:id` of the URL; 404 unless a positive integer (so `/admin/users/roles` is not a user). */
function idParam(request: FastifyRequest): number {
  const raw = (request.params as { id?: string }).id ?? '';
  const id = /^[1-9][0-9]{0,9}$/u.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id > 2147483647) throw new NotFoundError(`user ${raw.slice(0, 20)} not found`);
  return id;
}

/** The service's field names → the form's input names (listmonk's form names `user_role`, `list_role`). */
const FORM_FIELD: Readonly<Record<string, string>> = { user_role_id: 'user_role', list_role_id: 'list_role' };

/**
 * A failed save as the form shows it: a FieldError (400) or a 409 naming a field (`username: …`) beside
 * that field when the form has it; any other 4xx (the last Super Admin, the legacy admin) above the
 * form. Null for anything else (a 5xx, rethrown by the caller).
 */
export function formFailure(err: unknown, fields: ReadonlySet<string>): { errors: FormErrors; formError: string | null } | null {
  if (!(err instanceof AppError) || err.statusCode >= 500 || err instanceof NotFoundError) return null;
  let name: string | null = null;
  let message = err.message;
  if (err instanceof FieldError) name = err.field;
  else if (err instanceof ConflictError) name = /^([a-z_]+): /u.exec(err.message)?.[1] ?? null;
  if (name !== null) {
    const input = FORM_FIELD[name] ?? name;
    message = message.replace(/^[^:]+: /u, '');
    if (fields.has(input)) return { errors: { [input]: message }, formError: null };
    return { errors: {}, formError: err.message };
  }
  return { errors: {}, formError: message };
}

const USER_FIELDS: ReadonlySet<string> = new Set(['type', 'status', 'username', 'name', 'email', 'password_login', 'password', 'password2', 'user_role', 'list_role']);
const PROFILE_FIELDS: ReadonlySet<string> = new Set(['name', 'email', 'password', 'password2']);

/** The posted user form's values (text as typed; the type only matters on create). */
function postedValues(body: Form, stored: User | null): UserFormValues {
  return {
    username: field(body, 'username'),
    name: field(body, 'name'),
    email: field(body, 'email'),
    type: stored !== null ? (stored.type === 'api' ? 'api' : 'user') : field(body, 'type') === 'api' ? 'api' : 'user',
    status: field(body, 'status'),
    password_login: field(body, 'password_login') === 'true',
    user_role: field(body, 'user_role'),
    list_role: field(body, 'list_role'),
  };
}

/** Checks what the service cannot see (two password fields, the selects' shapes); errors by input name. */
function checkForm(body: Form, v: UserFormValues): Record<string, string> {
  const errors: Record<string, string> = {};
  if (field(body, 'password') !== field(body, 'password2')) errors.password2 = t('users.passwordMismatch');
  if (!['enabled', 'disabled'].includes(v.status)) errors.status = t('users.chooseStatus');
  if (!/^[1-9][0-9]{0,9}$/u.test(v.user_role)) errors.user_role = t('users.chooseRole');
  if (v.list_role !== '' && !/^[1-9][0-9]{0,9}$/u.test(v.list_role)) errors.list_role = t('users.chooseListRole');
  if (field(body, 'type') !== '' && !['user', 'api'].includes(field(body, 'type'))) errors.type = t('users.chooseType');
  return errors;
}

/** The fields both create and update send, from checked form values. */
function commonFields(body: Form, v: UserFormValues) {
  const password = field(body, 'password');
  return {
    username: v.username,
    name: v.name,
    status: v.status as 'enabled' | 'disabled',
    user_role_id: Number(v.user_role),
    list_role_id: v.list_role === '' ? null : Number(v.list_role),
    ...(v.type === 'user' ? { email: v.email, password_login: v.password_login, ...(password !== '' ? { password } : {}) } : {}),
  };
}

function handlers(deps: UserPageDeps) {
  const { accounts, roles } = deps;
  /** The form page (new or edit) with `values`, errors and status. */
  const formPage = async (ctx: PageContext, user: User | null, values: UserFormValues, failure?: { errors: FormErrors; formError: string | null }): Promise<PageResult> => {
    const [userRoles, listRoles] = await Promise.all([roles.userRoles(), roles.listRoles()]);
    const body = <UserFormView ctx={ctx} user={user} values={values} userRoles={userRoles} listRoles={listRoles} errors={failure?.errors ?? {}} formError={failure?.formError ?? null} />;
    return view(userFormTitle(user), body, { status: failure ? 422 : 200 });
  };

  /** Runs a save; on a 4xx the form re-renders with the failure, anything else propagates. */
  const attempt = async (run: () => Promise<PageResult>, onFail: (f: { errors: FormErrors; formError: string | null }) => Promise<PageResult>, fields: ReadonlySet<string>): Promise<PageResult> => {
    try {
      return await run();
    } catch (err) {
      const failure = formFailure(err, fields);
      if (failure === null) throw err;
      return onFail(failure);
    }
  };

  const caller = (ctx: PageContext): ProfileCaller => ({ userId: ctx.principal.userId, sessionId: ctx.principal.session?.id ?? null });

  return {
    list: async (request: FastifyRequest, ctx: PageContext): Promise<PageResult> => {
      const raw = (request.query as { query?: unknown }).query;
      const query = typeof raw === 'string' ? raw.slice(0, 200) : '';
      const all = await accounts.list();
      return view(t('users.users'), <UsersView ctx={ctx} users={all.filter((u) => userMatches(u, query))} query={query} total={all.length} />);
    },

    newForm: async (_request: FastifyRequest, ctx: PageContext) => formPage(ctx, null, formValues(null)),

    create: async (request: FastifyRequest, ctx: PageContext) => {
      const body = formOf(request);
      const v = postedValues(body, null);
      const errors = checkForm(body, v);
      if (Object.keys(errors).length > 0) return formPage(ctx, null, v, { errors, formError: null });
      const input: UserCreate = { ...commonFields(body, v), type: v.type };
      return attempt(async () => {
        const created = await accounts.create(input);
        // An API user's token is answered once: shown now, from this POST, and nowhere else.
        if (created.password !== undefined) return view(t('users.apiTokenTitle', { name: created.username }), <TokenView ctx={ctx} user={created} token={created.password} created />);
        return redirect('/admin/users', { kind: 'success', key: 'globals.messages.created', params: { name: created.username } });
      }, (f) => formPage(ctx, null, v, f), USER_FIELDS);
    },

    editForm: async (request: FastifyRequest, ctx: PageContext) => {
      const user = await accounts.get(idParam(request));
      return formPage(ctx, user, formValues(user));
    },

    save: async (request: FastifyRequest, ctx: PageContext) => {
      const user = await accounts.get(idParam(request));
      const body = formOf(request);
      const v = postedValues(body, user);
      const errors = checkForm(body, v);
      if (Object.keys(errors).length > 0) return formPage(ctx, user, v, { errors, formError: null });
      const input: UserUpdate = commonFields(body, v);
      return attempt(async () => {
        const saved = await accounts.update(user.id, input);
        return redirect(`/admin/users/${saved.id}`, { kind: 'success', key: 'globals.messages.updated', params: { name: saved.username } });
      }, (f) => formPage(ctx, user, v, f), USER_FIELDS);
    },

    remove: async (request: FastifyRequest, ctx: PageContext) => {
      const user = await accounts.get(idParam(request));
      return attempt(async () => {
        await accounts.delete(user.id);
        return redirect('/admin/users', { kind: 'success', key: 'globals.messages.deleted', params: { name: user.username } });
      }, (f) => formPage(ctx, user, formValues(user), f), new Set());
    },

    regenerateToken: async (request: FastifyRequest, ctx: PageContext) => {
      const user = await accounts.get(idParam(request));
      return attempt(async () => {
        const saved = await accounts.update(user.id, { regenerate_token: true });
        if (saved.password === undefined) throw new Error('users: a regenerated token was not answered');
        return view(t('users.apiTokenTitle', { name: saved.username }), <TokenView ctx={ctx} user={saved} token={saved.password} created={false} />);
      }, (f) => formPage(ctx, user, formValues(user), f), new Set());
    },

    profile: async (request: FastifyRequest, ctx: PageContext) => {
      const user = await accounts.profile(caller(ctx));
      // `?twofa=setup` shows a new secret and its QR code (nothing is stored until a code proves it).
      const setup = (request.query as Form).twofa === 'setup' && canEnrol(user) ? await deps.twofa.generate(user.id) : null;
      return view(t('users.profile'), <ProfileView ctx={ctx} user={user} enrolment={setup} />);
    },

    enableTwofa: async (request: FastifyRequest, ctx: PageContext) => {
      const user = await accounts.profile(caller(ctx));
      const body = formOf(request);
      try {
        await deps.twofa.enable(user.id, field(body, 'secret'), field(body, 'code'), ctx.principal.session?.id ?? null);
        return redirect('/admin/user/profile', { kind: 'success', key: 'users.twoFAEnabled' });
      } catch (err) {
        if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
        // Show the same secret again so the user need not scan a new code.
        const enrolment = canEnrol(user) ? await deps.twofa.enrolment(user.id, field(body, 'secret')).catch(() => null) : null;
        const errors = err instanceof FieldError ? { [err.field === 'secret' ? 'code' : err.field]: fieldMessage(err) } : {};
        return view(t('users.profile'), <ProfileView ctx={ctx} user={user} enrolment={enrolment} twofaErrors={errors} formError={err instanceof FieldError ? null : err.message} />, { status: 422 });
      }
    },

    disableTwofa: async (request: FastifyRequest, ctx: PageContext) => {
      const user = await accounts.profile(caller(ctx));
      try {
        await deps.twofa.disable(user.id, field(formOf(request), 'password'), originOf(request), ctx.principal.session?.id ?? null);
        return redirect('/admin/user/profile', { kind: 'success', key: 'users.twoFADisabled' });
      } catch (err) {
        if (!(err instanceof AppError) || err.statusCode >= 500 || err.statusCode === 429) throw err;
        const message = err instanceof FieldError ? fieldMessage(err) : t('users.twoFAWrongPassword');
        return view(t('users.profile'), <ProfileView ctx={ctx} user={user} twofaErrors={{ twofa_password: message }} />, { status: 422 });
      }
    },

    saveProfile: async (request: FastifyRequest, ctx: PageContext) => {
      const user = await accounts.profile(caller(ctx));
      const body = formOf(request);
      const values: ProfileValues = { name: field(body, 'name'), email: body.email === undefined ? user.email ?? '' : field(body, 'email') };
      const fail = (f: { errors: FormErrors; formError: string | null }) =>
        view(t('users.profile'), <ProfileView ctx={ctx} user={user} values={values} errors={f.errors} formError={f.formError} />, { status: 422 });
      if (field(body, 'password') !== field(body, 'password2')) return fail({ errors: { password2: t('users.passwordMismatch') }, formError: null });
      const password = field(body, 'password');
      return attempt(async () => {
        // Fields the page did not show (e-mail of an API user, a disabled e-mail) are not sent: kept.
        await accounts.updateProfile(caller(ctx), { name: values.name, ...(body.email !== undefined ? { email: values.email } : {}), ...(password !== '' ? { password } : {}) });
        return redirect('/admin/user/profile', { kind: 'success', key: 'users.profileSaved' });
      }, async (f) => fail(f), PROFILE_FIELDS);
    },
  };
}

/** True when the user may turn TOTP on from the profile (a sign-in user with a password, TOTP off). */
function canEnrol(user: User): boolean {
  return user.type === 'user' && user.password_login && user.twofa_type !== 'totp';
}

/** A FieldError's message without its `field: ` prefix (the page shows it beside the field). */
function fieldMessage(err: FieldError): string {
  return err.message.replace(/^[^:]+: /u, '');
}
