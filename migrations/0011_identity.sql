-- Identity (issue 16): listmonk v4–v6's users, user roles, list roles and API users, plus what the
-- admin UI needs across instances (sessions, password resets, login failures, the audit log, recent
-- log lines). Nothing about a signed-in user is held in one process's memory between requests.

-- A role is a user role (permissions such as `subscribers:get_all`) or a list role (per-list
-- `list:get` / `list:manage` in role_lists). Role 1 is the Super Admin (every permission; listmonk
-- reference §3.2). Unlike listmonk, deleting a list role never deletes its users (§3.4, quirk 21).
CREATE TABLE roles (
  id          serial PRIMARY KEY,
  type        text NOT NULL CHECK (type IN ('user', 'list')),
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 2000),
  permissions text[] NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT roles_type_name_key UNIQUE (type, name)
);

-- One row per list a list role grants: its permissions on that list (`list:get`, `list:manage`).
CREATE TABLE role_lists (
  role_id     integer NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  list_id     integer NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
  permissions text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (role_id, list_id)
);
CREATE INDEX role_lists_list_idx ON role_lists (list_id);

INSERT INTO roles (id, type, name, permissions) VALUES (1, 'user', 'Super Admin', ARRAY[
  'lists:get_all', 'lists:manage_all',
  'subscribers:get', 'subscribers:get_all', 'subscribers:manage', 'subscribers:import', 'subscribers:sql_query', 'tx:send',
  'campaigns:get', 'campaigns:get_all', 'campaigns:get_analytics', 'campaigns:manage', 'campaigns:manage_all', 'campaigns:send',
  'bounces:get', 'bounces:manage', 'webhooks:post_bounce',
  'media:get', 'media:manage',
  'templates:get', 'templates:manage',
  'users:get', 'users:manage', 'roles:get', 'roles:manage',
  'settings:get', 'settings:manage', 'settings:maintain'
]);
SELECT setval(pg_get_serial_sequence('roles', 'id'), 1);

-- Users: `user` (signs in to the admin) and `api` (token for the API). password_hash holds a scrypt
-- hash for login passwords and the legacy MAILROOM_ADMIN_PASSWORD user, `sha256$<hex>` for API tokens.
ALTER TABLE users
  ADD COLUMN email          text,
  ADD COLUMN name           text NOT NULL DEFAULT '',
  ADD COLUMN avatar         text,
  ADD COLUMN password_login boolean NOT NULL DEFAULT true,
  ADD COLUMN user_role_id   integer REFERENCES roles (id) ON DELETE RESTRICT,
  ADD COLUMN list_role_id   integer REFERENCES roles (id) ON DELETE SET NULL,
  ADD COLUMN twofa_type     text NOT NULL DEFAULT 'none' CHECK (twofa_type IN ('none', 'totp')),
  ADD COLUMN twofa_key      text,
  ADD COLUMN legacy         boolean NOT NULL DEFAULT false,
  ADD COLUMN loggedin_at    timestamptz;
ALTER TABLE users ALTER COLUMN password_hash DROP NOT NULL;
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
-- The user created from MAILROOM_ADMIN_USER before this migration is the legacy super admin.
UPDATE users SET user_role_id = 1, legacy = true, name = username, email = username || '@api' WHERE type = 'api';
ALTER TABLE users ALTER COLUMN user_role_id SET NOT NULL;

-- Admin sessions: the cookie holds a random token; only its SHA-256 is stored. csrf is the token every
-- state-changing request made with the cookie must carry. twofa_pending: signed in with the password,
-- waiting for the TOTP code (the session grants nothing yet).
CREATE TABLE sessions (
  id            text PRIMARY KEY,
  user_id       integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  csrf          text NOT NULL,
  twofa_pending boolean NOT NULL DEFAULT false,
  ip            text,
  user_agent    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  seen_at       timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL
);
CREATE INDEX sessions_user_idx ON sessions (user_id);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

-- Forgot/reset password: single-use tokens (SHA-256 stored), with an expiry.
CREATE TABLE password_resets (
  id         text PRIMARY KEY,
  user_id    integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX password_resets_user_idx ON password_resets (user_id);

-- Failed sign-ins per key (client address, or user name), so the throttle holds across instances.
CREATE TABLE login_failures (
  key          text PRIMARY KEY,
  failures     integer NOT NULL DEFAULT 0,
  window_start timestamptz NOT NULL DEFAULT now(),
  locked_until timestamptz
);

-- Who changed what and when (listmonk has none): every state-changing API call and form post.
CREATE TABLE audit_log (
  id            bigserial PRIMARY KEY,
  created_at    timestamptz NOT NULL DEFAULT now(),
  user_id       integer,
  username      text NOT NULL,
  action        text NOT NULL,
  resource_type text NOT NULL,
  resource_id   text,
  method        text NOT NULL,
  path          text NOT NULL,
  status        integer NOT NULL,
  ip            text
);
CREATE INDEX audit_log_created_idx ON audit_log (created_at);
CREATE INDEX audit_log_user_idx ON audit_log (user_id, created_at);
CREATE INDEX audit_log_resource_idx ON audit_log (resource_type, resource_id);

-- Recent server log lines from every instance (the Logs page), trimmed to a fixed number per instance.
CREATE TABLE log_lines (
  id         bigserial PRIMARY KEY,
  instance   text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  level      integer NOT NULL,
  line       jsonb NOT NULL
);
CREATE INDEX log_lines_instance_idx ON log_lines (instance, id);
