-- First-run setup of the login form (login.ts).

-- name: login-user-count
-- How many sign-in users exist (none: the login page is the first-run setup form).
SELECT count(*)::int AS n FROM users WHERE type = 'user';

-- name: login-setup-insert
-- The first Super Admin, only while no sign-in user exists (two concurrent setups create one user).
INSERT INTO users (username, email, name, password_hash, type, user_role_id, password_login, status)
SELECT :username, :email, :username, :password_hash, 'user', 1, true, 'enabled'
WHERE NOT EXISTS (SELECT 1 FROM users WHERE type = 'user')
RETURNING id;
