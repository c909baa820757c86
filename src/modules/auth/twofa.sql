-- TOTP two-factor sign-in (twofa.ts).

-- name: twofa-user
-- A user's two-factor state, for enrolment and for the sign-in step.
SELECT id, username, email, type, status, password_login, password_hash, twofa_type, twofa_key, twofa_last_step
FROM users WHERE id = :id;

-- name: twofa-set
-- Turns TOTP on (type 'totp', its key, the step of the code that proved it) or off (type 'none', NULLs).
UPDATE users SET twofa_type = :type, twofa_key = :key, twofa_last_step = :step, updated_at = now()
WHERE id = :id AND twofa_type = :from
RETURNING id;

-- name: twofa-use-step
-- Accepts a TOTP code's step only once: later than every step accepted before (RFC 6238 §5.2).
UPDATE users SET twofa_last_step = :step
WHERE id = :id AND twofa_type = 'totp' AND (twofa_last_step IS NULL OR twofa_last_step < :step)
RETURNING id;

-- name: twofa-pending-session
-- The session of a cookie that still owes its TOTP code, while it is young enough to give it.
SELECT user_id FROM sessions
WHERE id = :id AND twofa_pending AND expires_at > now() AND created_at > now() - make_interval(secs => :max_age_s);

-- name: sessions-delete-others
-- Signs a user out everywhere but in the session `:keep` (the one that made the change; '' for none).
DELETE FROM sessions WHERE user_id = :user_id AND id <> :keep;
