-- Forgot/reset password by e-mail (password-reset.ts).

-- name: reset-user-by-email
-- The sign-in user a password-reset request names: enabled, password login on.
SELECT id, email FROM users
WHERE lower(email) = lower(:email) AND type = 'user' AND status = 'enabled' AND password_login;

-- name: reset-recent-count
-- Reset links sent to a user in the last :window_s seconds (a mailbox is not flooded).
SELECT count(*)::int AS n FROM password_resets WHERE user_id = :user_id AND created_at > now() - make_interval(secs => :window_s);

-- name: reset-insert
INSERT INTO password_resets (id, user_id, expires_at) VALUES (:id, :user_id, now() + make_interval(secs => :ttl_s));

-- name: reset-get
-- A reset token's state: used, expired, and whether its user may still reset a password.
SELECT r.user_id, r.used_at IS NOT NULL AS used, r.expires_at <= now() AS expired,
       (u.type = 'user' AND u.status = 'enabled' AND u.password_login) AS usable
FROM password_resets r JOIN users u ON u.id = r.user_id
WHERE r.id = :id;

-- name: reset-consume
-- Marks a live token used; no row when it was used, expired or unknown (two tabs: one wins).
UPDATE password_resets SET used_at = now()
WHERE id = :id AND used_at IS NULL AND expires_at > now()
RETURNING user_id;

-- name: reset-consume-others
-- The new password makes every other outstanding link of the user worthless.
UPDATE password_resets SET used_at = now() WHERE user_id = :user_id AND used_at IS NULL;

-- name: reset-set-password
UPDATE users SET password_hash = :password_hash, updated_at = now()
WHERE id = :id AND type = 'user' AND status = 'enabled' AND password_login
RETURNING id;

-- name: resets-delete-old
-- Forgets reset tokens a day after they expired.
DELETE FROM password_resets WHERE expires_at < now() - interval '1 day';

-- name: reset-end-sessions
-- The new password signs the user out everywhere.
DELETE FROM sessions WHERE user_id = :user_id;
