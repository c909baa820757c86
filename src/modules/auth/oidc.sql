-- OpenID Connect sign-in (oidc.ts).

-- name: oidc-login-insert
INSERT INTO oidc_logins (id, nonce, code_verifier, next, expires_at)
VALUES (:id, :nonce, :code_verifier, :next, now() + make_interval(secs => :ttl_s));

-- name: oidc-login-take
-- Takes (deletes) a live sign-in request: each state is good for one callback.
DELETE FROM oidc_logins WHERE id = :id RETURNING nonce, code_verifier, next, expires_at > now() AS live;

-- name: oidc-logins-delete-old
DELETE FROM oidc_logins WHERE expires_at < now();

-- name: oidc-user-by-email
-- The user an OpenID provider's e-mail claim names (any type and status: the caller decides).
SELECT id, type, status FROM users WHERE lower(email) = lower(:email);

-- name: oidc-user-insert
-- A user created on first OIDC sign-in (security.oidc.auto_create_users): no password, password
-- login off, the default roles, only when the roles exist and are of the right type.
INSERT INTO users (username, email, name, password_hash, type, user_role_id, list_role_id, password_login, status)
SELECT :email, :email, :name, NULL, 'user', :user_role_id, :list_role_id, false, 'enabled'
WHERE EXISTS (SELECT 1 FROM roles WHERE id = :user_role_id AND type = 'user')
  AND (:list_role_id::int IS NULL OR EXISTS (SELECT 1 FROM roles WHERE id = :list_role_id AND type = 'list'))
RETURNING id;

-- name: oidc-user-avatar
UPDATE users SET avatar = :avatar WHERE id = :id AND :avatar::text IS NOT NULL;
