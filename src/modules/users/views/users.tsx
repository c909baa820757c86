/**
 * The users page `/admin/users` (listmonk admin UI map §1.14, row 14; permission `users:get`): every
 * user and API user in one table (listmonk does not page users), a search box (`query`, `btn-query`),
 * New (`btn-new`) and each row's Edit (`btn-edit`) and Delete (`btn-delete`) for holders of
 * `users:manage` only; the same `can` refuses the POSTs (conventions §15). Pure: a function of its props.
 */
import type { VNode } from 'preact';
import { can } from '../../../http/access.js';
import type { PageContext } from '../../../ui/context.js';
import { CsrfField } from '../../../ui/components/form.js';
import { Badge, EmptyState, PageHeader } from '../../../ui/components/misc.js';
import { Table, type Column } from '../../../ui/components/table.js';
import { t } from '../../../ui/i18n.js';
import type { User } from '../schemas.js';
import { StatusBadge, TwoFactorLabel, TypeLabel, When } from './common.js';

/** Props of {@link UsersView}: the users to show (already filtered by `query`) and the search text. */
export interface UsersViewProps {
  ctx: PageContext;
  users: readonly User[];
  /** The search text as typed ('' for none). */
  query: string;
  /** How many users exist before the search (the header's count). */
  total: number;
}

/** True when `user` matches the search text `query` (case-insensitive, in user name, name or e-mail). */
export function userMatches(user: User, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (q === '') return true;
  return [user.username, user.name, user.email ?? ''].some((v) => v.toLowerCase().includes(q));
}

/** The users page's content. */
export function UsersView({ ctx, users, query, total }: UsersViewProps): VNode {
  const manage = can(ctx.principal, 'users:manage');
  // listmonk's table puts the name under the user name and both roles in one cell; dates show the day
  // (the exact time is in the `<time>`'s title), so the table fits a laptop screen without scrolling.
  // Called as functions and with their words looked up once, not per row: the table can hold every user.
  const words = { noEmail: t('users.noEmail'), listRole: t('users.listRole'), action: t(manage ? 'users.edit' : 'users.view'), delete: t('users.delete') };
  const columns: Column<User>[] = [
    {
      key: 'username',
      label: t('users.username'),
      cell: (u) => (
        <span class="cell-user" data-id={u.id}>
          <a href={`/admin/users/${u.id}`} data-cy="username">{u.username}</a>
          <span class="cell-sub">{u.name}</span>
        </span>
      ),
    },
    { key: 'email', label: t('users.email'), cell: (u) => u.email ?? <span class="muted">{words.noEmail}</span> },
    { key: 'type', label: t('users.type'), cell: (u) => TypeLabel({ type: u.type }) },
    {
      key: 'role',
      label: t('users.roleColumn'),
      cell: (u) => (
        <span class="cell-roles">
          <Badge tone="info">{u.user_role.name}</Badge>
          {u.list_role ? <span class="cell-sub">{words.listRole}: {u.list_role.name}</span> : null}
        </span>
      ),
    },
    { key: 'status', label: t('users.status'), cell: (u) => StatusBadge({ status: u.status }) },
    { key: 'twofa', label: t('users.twoFAShort'), cell: (u) => TwoFactorLabel({ type: u.twofa_type }) },
    { key: 'loggedin_at', label: t('users.lastLogin'), cell: (u) => When({ at: u.loggedin_at, day: true }) },
    { key: 'created_at', label: t('users.created'), cell: (u) => When({ at: u.created_at, day: true }) },
    {
      key: 'actions',
      label: t('users.actions'),
      cell: (u) => (
        <div class="row-actions">
          <a class="button secondary small" href={`/admin/users/${u.id}`} data-cy="btn-edit">
            {words.action}
            <span class="visually-hidden"> {u.username}</span>
          </a>
          {manage ? (
            // Every row's Delete submits the one form below the table (with the CSRF token once),
            // to its own URL: a 50-row page carries one token instead of fifty.
            <button type="submit" form="users-delete" formaction={`/admin/users/${u.id}/delete`} class="button danger small" data-cy="btn-delete" data-confirm={t('users.deleteConfirm', { name: u.username })}>
              {words.delete}
              <span class="visually-hidden"> {u.username}</span>
            </button>
          ) : null}
        </div>
      ),
    },
  ];
  return (
    <section>
      <PageHeader title={t('users.users')} count={total}>
        {manage ? <a class="button" href="/admin/users/new" data-cy="btn-new">{t('users.newUser')}</a> : null}
      </PageHeader>
      <form method="get" action="/admin/users" class="search-form" role="search">
        <label for="users-query" class="visually-hidden">{t('users.search')}</label>
        <input id="users-query" type="search" name="query" value={query} data-cy="query" placeholder={t('users.search')} />
        <button type="submit" class="button secondary" data-cy="btn-query">{t('users.searchButton')}</button>
      </form>
      <Table
        caption={t('users.users')}
        columns={columns}
        rows={users}
        rowKey={(u) => u.id}
        path="/admin/users"
        cy="users-table"
        empty={<EmptyState message={t(query.trim() === '' ? 'globals.messages.emptyState' : 'users.noMatch')} />}
      />
      {manage ? (
        <form id="users-delete" method="post" action="/admin/users" class="inline-form" hidden>
          {CsrfField({ token: ctx.csrf })}
        </form>
      ) : null}
    </section>
  );
}
