/**
 * Rules of the users API and the profile (issue 16 "Identity" items 1–2; listmonk reference §3.3,
 * `cmd/users.go`, `queries/users.sql`):
 * - user names 3–2000 bytes of ASCII letters, digits and `_ - . @`; a `user` needs a valid e-mail and,
 *   with password login on, a password of 8–2000 bytes (scrypt-hashed); the name defaults to the user name;
 * - an API user gets a generated 48-character token, answered once in `password`; only `sha256$<hex>`
 *   is stored; its e-mail is `<username>@api` (answered as null, as listmonk does);
 * - the last enabled Super Admin (type user, role 1) cannot be deleted, disabled or given another role;
 * - a password change or disabling a user deletes its sessions in the same transaction;
 * - the legacy MAILROOM_ADMIN_USER row is managed by the environment: not listed, not editable here.
 */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/db.js';
import { BadRequestError, FieldError, NotFoundError } from '../../errors.js';
import { parseEmail } from '../../mail/address.js';
import type { AccountRepo, PasswordChange, StoredUser, UserFields, UserView } from './repo.js';
import type { ProfileUpdate, User, UserCreate, UserUpdate, UserWithToken } from './schemas.js';
import { hashPassword, hashToken } from './service.js';

/** listmonk's `stdInputMaxLen`: the longest user name, name and password (bytes). */
export const MAX_INPUT = 2000;
/** listmonk's `reUsername`. */
const USERNAME = /^[a-zA-Z0-9_\-.@]+$/u;
const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Length of a generated API token (listmonk: 48 alphanumeric characters). */
export const TOKEN_LENGTH = 48;

/** Why the legacy admin cannot be changed here. */
function legacyRefusal(id: number): BadRequestError {
  return new BadRequestError(`user ${id} is the MAILROOM_ADMIN_USER account, managed by the environment: change MAILROOM_ADMIN_USER / MAILROOM_ADMIN_PASSWORD and restart instead`);
}

/** The last-Super-Admin rule's refusal (listmonk `users.needSuper`). */
function lastSuperAdminRefusal(): BadRequestError {
  return new BadRequestError('the last enabled Super Admin cannot be deleted, disabled or given another role: make another user a Super Admin first');
}

/**
 * A generated API token: `TOKEN_LENGTH` characters of [A-Za-z0-9] from the system CSPRNG, by rejection
 * sampling (no modulo bias; ~285 bits).
 */
export function generateToken(): string {
  let out = '';
  while (out.length < TOKEN_LENGTH) {
    for (const b of randomBytes(64)) {
      if (b < TOKEN_ALPHABET.length * 4 && out.length < TOKEN_LENGTH) out += TOKEN_ALPHABET[b % TOKEN_ALPHABET.length];
    }
  }
  return out;
}

/** A trimmed user name; 400 naming `username` unless 3–2000 bytes of ASCII letters, digits, `_ - . @`. */
export function validUsername(input: string): string {
  const name = input.trim();
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes < 3 || bytes > MAX_INPUT) throw new FieldError('username', `must be 3 to ${MAX_INPUT} characters long`);
  if (!USERNAME.test(name)) throw new FieldError('username', 'may contain only ASCII letters, digits and _ - . @');
  return name;
}

/** A trimmed, lower-cased e-mail; 400 naming `email` when missing or invalid (listmonk: required for `user`). */
export function validUserEmail(input: string | undefined): string {
  if (input === undefined || input.trim() === '') throw new FieldError('email', 'is required for users of type user');
  const parsed = parseEmail(input);
  if (!parsed.ok) throw new FieldError('email', parsed.reason);
  return parsed.email.toLowerCase();
}

/** A trimmed display name of at most 2000 characters; blank → `fallback` (the user name, as listmonk). */
export function validDisplayName(input: string | undefined, fallback: string): string {
  const name = (input ?? '').trim();
  if ([...name].length > MAX_INPUT) throw new FieldError('name', `must be at most ${MAX_INPUT} characters long`);
  return name === '' ? fallback : name;
}

/** Checks a new password's length: 8–2000 bytes (listmonk `strHasLen(password, 8, stdInputMaxLen)`). */
export function checkPassword(password: string): void {
  const bytes = Buffer.byteLength(password, 'utf8');
  if (bytes < 8 || bytes > MAX_INPUT) throw new FieldError('password', `must be 8 to ${MAX_INPUT} bytes long`);
}

/** Drops the internal `legacy` flag from a row. */
function shape({ legacy: _legacy, ...user }: UserView): User {
  return user;
}

/** The caller of the profile routes: who is signed in, and with which session (kept on a password change). */
export interface ProfileCaller {
  userId: number;
  /** The session's id hash when signed in with a cookie; null for tokens and Basic credentials. */
  sessionId: string | null;
}

/** Users, API users and the profile. */
export class AccountService {
  constructor(private readonly repo: AccountRepo) {}

  /** Every user but the legacy admin, oldest first (GET /api/users; listmonk lists no TOML admin either). */
  async list(): Promise<User[]> {
    return (await this.repo.list()).map(shape);
  }

  /** One user (GET /api/users/:id); 404 when absent or the legacy admin. */
  async get(id: number): Promise<User> {
    const row = await this.repo.view(id);
    if (row === null || row.legacy) throw new NotFoundError(`user ${id} not found`);
    return shape(row);
  }

  /** Creates a user or API user (POST /api/users); an API user's answer carries its token in `password`, once. */
  async create(body: UserCreate): Promise<UserWithToken> {
    const username = validUsername(body.username);
    const type = body.type ?? 'user';
    const name = validDisplayName(body.name, username);
    let token: string | null = null;
    let hash: string | null = null;
    let email: string;
    let passwordLogin: boolean;
    if (type === 'api') {
      token = generateToken();
      hash = hashToken(token);
      email = `${username}@api`;
      passwordLogin = false;
    } else {
      email = validUserEmail(body.email);
      // listmonk's client always sends password_login; a password alone means "password login on".
      passwordLogin = body.password_login ?? (body.password !== undefined && body.password !== '');
      if (passwordLogin) {
        checkPassword(body.password ?? '');
        hash = await hashPassword(body.password ?? '');
      }
    }
    const fields: UserFields = {
      username, email, name, type, status: body.status ?? 'enabled', password_login: passwordLogin,
      user_role_id: body.user_role_id, list_role_id: body.list_role_id ?? null,
    };
    const id = await this.repo.db.tx(async (q) => {
      await this.checkRoles(q, fields.user_role_id, fields.list_role_id);
      return this.repo.insert(q, fields, hash);
    });
    const user = await this.get(id);
    return token === null ? user : { ...user, password: token };
  }

  /**
   * Updates a user (PUT /api/users/:id): omitted fields keep their values; `type` cannot change; the
   * last-Super-Admin rule holds; a new password or disabling signs the user out everywhere. An API
   * user's `password` is ignored (listmonk); `regenerate_token: true` replaces its token, answered once.
   */
  async update(id: number, body: UserUpdate): Promise<UserWithToken> {
    const current = await this.repo.view(id);
    if (current === null) throw new NotFoundError(`user ${id} not found`);
    if (current.legacy) throw legacyRefusal(id);
    if (body.type !== undefined && body.type !== current.type) throw new FieldError('type', 'cannot be changed; create a new user instead');
    if (body.regenerate_token === true && current.type !== 'api') throw new FieldError('regenerate_token', 'only API users have a token');
    // Slow work (scrypt) before the transaction, so no lock is held while hashing.
    const newPassword = body.password !== undefined && body.password !== '' ? body.password : null;
    let change: PasswordChange = { action: 'keep' };
    let token: string | null = null;
    if (current.type === 'api') {
      if (body.regenerate_token === true) {
        token = generateToken();
        change = { action: 'set', hash: hashToken(token) };
      }
    } else if (body.password_login ?? current.password_login) {
      if (newPassword !== null) {
        checkPassword(newPassword);
        change = { action: 'set', hash: await hashPassword(newPassword) };
      }
    } else change = { action: 'clear' };

    await this.repo.db.tx(async (q) => {
      const before = await this.repo.lockSuperAdmins(q);
      const stored = await this.repo.getForUpdate(q, id);
      if (stored === null) throw new NotFoundError(`user ${id} not found`);
      const fields = this.updatedFields(stored, body);
      if (fields.password_login && change.action === 'keep' && !stored.has_password) {
        throw new FieldError('password', 'is required to turn password login on');
      }
      await this.checkRoles(q, fields.user_role_id, fields.list_role_id);
      await this.repo.update(q, id, fields, change);
      if (before > 0 && (await this.repo.countSuperAdmins(q)) === 0) throw lastSuperAdminRefusal();
      const signedOut = (change.action !== 'keep' && stored.type === 'user') || (fields.status === 'disabled' && stored.status !== 'disabled');
      if (signedOut) await this.repo.deleteSessions(q, id);
    });
    const user = await this.get(id);
    return token === null ? user : { ...user, password: token };
  }

  /** The stored user with the body's fields applied and validated (the type never changes). */
  private updatedFields(stored: StoredUser, body: UserUpdate): Omit<UserFields, 'type'> {
    const username = body.username !== undefined ? validUsername(body.username) : stored.username;
    const name = body.name !== undefined ? validDisplayName(body.name, username) : stored.name;
    const isApi = stored.type === 'api';
    return {
      username,
      name,
      email: isApi ? `${username}@api` : body.email !== undefined ? validUserEmail(body.email) : stored.email,
      status: body.status ?? stored.status,
      password_login: isApi ? false : body.password_login ?? stored.password_login,
      user_role_id: body.user_role_id ?? stored.user_role_id,
      list_role_id: 'list_role_id' in body ? (body.list_role_id ?? null) : stored.list_role_id,
    };
  }

  /** 400 naming the field when `userRoleId` is not a user role or `listRoleId` not a list role. */
  private async checkRoles(q: Queryable, userRoleId: number, listRoleId: number | null): Promise<void> {
    if ((await this.repo.roleType(q, userRoleId)) !== 'user') throw new FieldError('user_role_id', `no user role with id ${userRoleId}`);
    if (listRoleId !== null && (await this.repo.roleType(q, listRoleId)) !== 'list') {
      throw new FieldError('list_role_id', `no list role with id ${listRoleId}`);
    }
  }

  /** Deletes one user (DELETE /api/users/:id); 404 when absent, 400 for the legacy admin or the last Super Admin. */
  async delete(id: number): Promise<void> {
    const deleted = await this.deleteUsers([id]);
    if (deleted === 0) throw new NotFoundError(`user ${id} not found`);
  }

  /**
   * Deletes users by id (DELETE /api/users?id=…); unknown ids are ignored (as for lists). All or
   * nothing: 400 when the legacy admin is among them or the last enabled Super Admin would go. Returns
   * how many were deleted. (listmonk's delete-users compares with `= ALL`, so it deletes nothing when
   * given two different ids.)
   */
  async deleteMany(ids: number[]): Promise<number> {
    return this.deleteUsers(ids);
  }

  private async deleteUsers(ids: number[]): Promise<number> {
    return this.repo.db.tx(async (q) => {
      const legacy = await this.repo.legacyAmong(q, ids);
      if (legacy.length > 0) throw legacyRefusal(legacy[0]!);
      const before = await this.repo.lockSuperAdmins(q);
      const deleted = await this.repo.delete(q, ids);
      if (before > 0 && (await this.repo.countSuperAdmins(q)) === 0) throw lastSuperAdminRefusal();
      return deleted.length;
    });
  }

  /** The caller's own user (GET /api/profile), the legacy admin included. */
  async profile(caller: ProfileCaller): Promise<User> {
    const row = await this.repo.view(caller.userId);
    if (row === null) throw new NotFoundError(`user ${caller.userId} not found`);
    return shape(row);
  }

  /**
   * Updates the caller's name, e-mail and password (PUT /api/profile; listmonk UpdateUserProfile): the
   * e-mail and password only for users with password login (an API user changes its name only). A new
   * password signs the user out of every other session; the caller's own session stays.
   */
  async updateProfile(caller: ProfileCaller, body: ProfileUpdate): Promise<User> {
    const current = await this.repo.view(caller.userId);
    if (current === null) throw new NotFoundError(`user ${caller.userId} not found`);
    if (current.legacy) throw legacyRefusal(caller.userId);
    const name = body.name !== undefined ? validDisplayName(body.name, current.username) : current.name;
    const withPassword = current.type === 'user' && current.password_login;
    const email = withPassword && body.email !== undefined ? validUserEmail(body.email) : current.email;
    let hash: string | null = null;
    if (withPassword && body.password !== undefined && body.password !== '') {
      checkPassword(body.password);
      hash = await hashPassword(body.password);
    }
    await this.repo.db.tx(async (q) => {
      // The view answers null for an API user's e-mail: keep the stored `<username>@api`.
      await this.repo.updateProfile(q, caller.userId, name, current.type === 'api' ? `${current.username}@api` : email, hash);
      if (hash !== null) await this.repo.deleteSessions(q, caller.userId, caller.sessionId);
    });
    return this.profile(caller);
  }
}
