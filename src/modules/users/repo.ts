/**
 * SQL access for the users API (accounts.sql). Rows of `account-view` come back in the API's shape plus
 * `legacy`; constraint violations become the domain's 409s here, at the repo edge (conventions §3).
 */
import { violates, type Db, type Queryable } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { ConflictError } from '../../errors.js';
import type { User } from './schemas.js';

const Q = loadQueries(new URL('./accounts.sql', import.meta.url), [
  'account-view',
  'account-get-for-update',
  'account-lock-super-admins',
  'account-count-super-admins',
  'account-role-type',
  'account-insert',
  'account-update',
  'account-legacy-among',
  'account-delete',
  'account-sessions-delete',
  'account-profile-update',
]);

/** A user as the API answers it, plus whether it is the environment-managed legacy admin. */
export type UserView = User & { legacy: boolean };

/** The stored fields an update starts from (never the hash itself: only whether there is one). */
export interface StoredUser {
  id: number;
  username: string;
  email: string | null;
  name: string;
  type: 'user' | 'api';
  status: 'enabled' | 'disabled';
  password_login: boolean;
  has_password: boolean;
  user_role_id: number;
  list_role_id: number | null;
  legacy: boolean;
}

/** The fields written by insert and update. */
export interface UserFields {
  username: string;
  email: string | null;
  name: string;
  type: 'user' | 'api';
  status: 'enabled' | 'disabled';
  password_login: boolean;
  user_role_id: number;
  list_role_id: number | null;
}

/** What an update does to the stored password hash. */
export type PasswordChange = { action: 'keep' } | { action: 'clear' } | { action: 'set'; hash: string };

/** Maps the users table's unique constraints to 409s naming the field; rethrows anything else. */
function conflict(err: unknown): never {
  if (violates(err, 'users_username_key')) throw new ConflictError('username: a user with this username already exists');
  if (violates(err, 'users_email_key')) throw new ConflictError('email: a user with this e-mail already exists');
  throw err;
}

/** Users table access for the users and profile APIs. */
export class AccountRepo {
  constructor(readonly db: Db) {}

  /** Every user but the legacy one, oldest first, in API shape. */
  async list(): Promise<UserView[]> {
    return this.db.run<UserView>(Q['account-view'], { id: null });
  }

  /** One user in API shape (the legacy one included), or null. */
  async view(id: number, q: Queryable = this.db): Promise<UserView | null> {
    const [row] = await q.run<UserView>(Q['account-view'], { id });
    return row ?? null;
  }

  /** The stored fields of user `id`, locked for the transaction `q`; null when absent. */
  async getForUpdate(q: Queryable, id: number): Promise<StoredUser | null> {
    const [row] = await q.run<StoredUser>(Q['account-get-for-update'], { id });
    return row ?? null;
  }

  /** Locks the enabled Super Admins of type user (see accounts.sql) and returns how many there are. */
  async lockSuperAdmins(q: Queryable): Promise<number> {
    return (await q.run(Q['account-lock-super-admins'])).length;
  }

  /** How many enabled Super Admins of type user there are now (inside `q`). */
  async countSuperAdmins(q: Queryable): Promise<number> {
    const [row] = await q.run<{ n: number }>(Q['account-count-super-admins']);
    return row?.n ?? 0;
  }

  /** The type of role `id` (`user` or `list`), or null when there is no such role. */
  async roleType(q: Queryable, id: number): Promise<'user' | 'list' | null> {
    const [row] = await q.run<{ type: 'user' | 'list' }>(Q['account-role-type'], { id });
    return row?.type ?? null;
  }

  /** Inserts a user; 409 naming `username` or `email` on a duplicate. Returns the new id. */
  async insert(q: Queryable, fields: UserFields, passwordHash: string | null): Promise<number> {
    try {
      const [row] = await q.run<{ id: number }>(Q['account-insert'], { ...fields, password_hash: passwordHash });
      return row!.id;
    } catch (err) {
      conflict(err);
    }
  }

  /** Writes every field of a (non-legacy) user; 409 on a duplicate username or e-mail. */
  async update(q: Queryable, id: number, fields: Omit<UserFields, 'type'>, password: PasswordChange): Promise<void> {
    try {
      await q.run(Q['account-update'], { id, ...fields, password: password.action, password_hash: password.action === 'set' ? password.hash : null });
    } catch (err) {
      conflict(err);
    }
  }

  /** Writes the caller's own name, e-mail and (non-null hash) password; 409 on a duplicate e-mail. */
  async updateProfile(q: Queryable, id: number, name: string, email: string | null, passwordHash: string | null): Promise<void> {
    try {
      await q.run(Q['account-profile-update'], { id, name, email, password_hash: passwordHash });
    } catch (err) {
      conflict(err);
    }
  }

  /** The legacy users among `ids`. */
  async legacyAmong(q: Queryable, ids: number[]): Promise<number[]> {
    return (await q.run<{ id: number }>(Q['account-legacy-among'], { ids })).map((r) => r.id);
  }

  /** Deletes the (non-legacy) users among `ids`; returns the ids deleted. */
  async delete(q: Queryable, ids: number[]): Promise<number[]> {
    return (await q.run<{ id: number }>(Q['account-delete'], { ids })).map((r) => r.id);
  }

  /** Deletes every session of `userId` except `keep` (a session id hash) when given. */
  async deleteSessions(q: Queryable, userId: number, keep: string | null = null): Promise<void> {
    await q.run(Q['account-sessions-delete'], { user_id: userId, keep });
  }
}
