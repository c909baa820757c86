-- Users and API users as the users API manages them (issue 16 "Identity" item 1; listmonk reference §3.3,
-- queries/users.sql). Kept apart from queries.sql (start-up and credential checks) and principal.sql
-- (the signed-in principal). The legacy MAILROOM_ADMIN_USER row (legacy = true) is managed by the
-- environment: it is never listed, changed or deleted here.

-- name: account-view
-- Users in the API's shape (listmonk's get-users / get-user): the user role inline, the list role with
-- its lists, or null. `email` is null for API users and `password_login` false, as listmonk answers
-- (setupUserFields). :id null: every user but the legacy one, oldest first; else that user (legacy
-- included: the profile of the legacy admin is read through here).
SELECT u.id, u.created_at, u.updated_at, u.username,
       (u.password_login AND u.type = 'user') AS password_login,
       CASE WHEN u.type = 'api' THEN NULL ELSE u.email END AS email,
       u.name, u.type, u.status, u.avatar, u.twofa_type, u.loggedin_at, u.user_role_id, u.list_role_id, u.legacy,
       jsonb_build_object('id', ur.id, 'name', ur.name, 'permissions', to_jsonb(ur.permissions)) AS user_role,
       CASE WHEN lr.id IS NULL THEN NULL
            ELSE jsonb_build_object('id', lr.id, 'name', lr.name, 'lists', coalesce(lp.lists, '[]'::jsonb)) END AS list_role
FROM users u
JOIN roles ur ON ur.id = u.user_role_id
LEFT JOIN roles lr ON lr.id = u.list_role_id
LEFT JOIN LATERAL (
  SELECT jsonb_agg(jsonb_build_object('id', rl.list_id, 'name', l.name, 'permissions', to_jsonb(rl.permissions)) ORDER BY rl.list_id) AS lists
  FROM role_lists rl JOIN lists l ON l.id = rl.list_id
  WHERE rl.role_id = lr.id
) lp ON true
WHERE (:id::int IS NULL AND NOT u.legacy) OR u.id = :id::int
ORDER BY u.created_at, u.id;

-- name: account-get-for-update
-- The stored fields an update is computed from, locked until the transaction ends.
SELECT id, username, email, name, type, status, password_login, (password_hash IS NOT NULL) AS has_password,
       user_role_id, list_role_id, legacy
FROM users WHERE id = :id FOR UPDATE;

-- name: account-lock-super-admins
-- Locks the enabled Super Admins who can sign in (type user, role 1) and returns them: every change
-- that could remove the last one takes these locks first, so two concurrent changes cannot each
-- remove "the other" one (listmonk checks with a count in the same statement, reference §3.2).
SELECT id FROM users WHERE user_role_id = 1 AND type = 'user' AND status = 'enabled' ORDER BY id FOR UPDATE;

-- name: account-count-super-admins
SELECT count(*)::int AS n FROM users WHERE user_role_id = 1 AND type = 'user' AND status = 'enabled';

-- name: account-role-type
-- The type (user | list) of a role, to check a user's user_role_id / list_role_id.
SELECT type FROM roles WHERE id = :id;

-- name: account-insert
INSERT INTO users (username, password_hash, type, status, email, name, password_login, user_role_id, list_role_id)
VALUES (:username, :password_hash, :type, :status, :email, :name, :password_login::boolean, :user_role_id::int, :list_role_id::int)
RETURNING id;

-- name: account-update
-- Writes every editable field (the service computed the new state from account-get-for-update).
-- :password is 'keep', 'clear' (password login turned off) or 'set' (:password_hash is the new hash).
UPDATE users SET
  username = :username,
  email = :email,
  name = :name,
  status = :status,
  password_login = :password_login::boolean,
  password_hash = CASE :password::text WHEN 'keep' THEN password_hash WHEN 'clear' THEN NULL ELSE :password_hash END,
  user_role_id = :user_role_id::int,
  list_role_id = :list_role_id::int,
  updated_at = now()
WHERE id = :id AND NOT legacy
RETURNING id;

-- name: account-legacy-among
-- The legacy (environment-managed) users among :ids.
SELECT id FROM users WHERE id = ANY(:ids::int[]) AND legacy;

-- name: account-delete
DELETE FROM users WHERE id = ANY(:ids::int[]) AND NOT legacy RETURNING id;

-- name: account-sessions-delete
-- Signs a user out everywhere (password changed, user disabled), except the session :keep (the one
-- changing its own password on the profile page, as listmonk keeps it) when given.
DELETE FROM sessions WHERE user_id = :user_id::int AND (:keep::text IS NULL OR id <> :keep::text);

-- name: account-profile-update
-- The caller's own name, e-mail and (when :password_hash is not null) password.
UPDATE users SET name = :name, email = :email, password_hash = coalesce(:password_hash, password_hash), updated_at = now()
WHERE id = :id AND NOT legacy
RETURNING id;
