-- name: session-insert
-- A new admin session (id = SHA-256 of the cookie's token).
INSERT INTO sessions (id, user_id, csrf, twofa_pending, ip, user_agent, expires_at)
VALUES (:id, :user_id, :csrf, :twofa_pending, :ip, :user_agent, now() + make_interval(secs => :absolute_s))
RETURNING id;

-- name: session-get
-- A live session: not past its absolute expiry, seen within the idle timeout.
SELECT id, user_id, csrf, twofa_pending, (now() - seen_at) > make_interval(secs => :touch_s) AS stale
FROM sessions
WHERE id = :id AND expires_at > now() AND seen_at > now() - make_interval(secs => :idle_s);

-- name: session-touch
-- Marks a session used now (written at most once a minute per session, not on every request).
UPDATE sessions SET seen_at = now() WHERE id = :id;

-- name: session-complete-twofa
-- The second factor was given: the session now grants the user's rights, under a fresh id and CSRF token.
UPDATE sessions SET id = :new_id, csrf = :csrf, twofa_pending = false, seen_at = now()
WHERE id = :id AND twofa_pending
RETURNING id;

-- name: session-delete
DELETE FROM sessions WHERE id = :id;

-- name: sessions-delete-for-user
-- Signs a user out everywhere (password changed, user disabled or deleted).
DELETE FROM sessions WHERE user_id = :user_id;

-- name: sessions-delete-expired
DELETE FROM sessions WHERE expires_at <= now() OR seen_at <= now() - make_interval(secs => :idle_s);

-- name: user-logged-in
UPDATE users SET loggedin_at = now() WHERE id = :id;
