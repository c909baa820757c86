-- name: user-upsert-password
-- Creates the API user or replaces its password (MAILROOM_ADMIN_PASSWORD at start-up).
INSERT INTO users (username, password_hash, type, user_role_id, legacy, name, email)
VALUES (:username, :password_hash, 'api', 1, true, :username, :username || '@api')
ON CONFLICT (username) DO UPDATE SET password_hash = EXCLUDED.password_hash, status = 'enabled', updated_at = now();

-- name: user-insert-if-absent
-- Creates the API user only when it does not exist yet; returns the row when it was created.
INSERT INTO users (username, password_hash, type, user_role_id, legacy, name, email)
VALUES (:username, :password_hash, 'api', 1, true, :username, :username || '@api')
ON CONFLICT (username) DO NOTHING
RETURNING id;
