-- Failed sign-ins counted per key (failures.ts): the password form, the TOTP step, 2FA changes.

-- name: login-failure-get
-- The failures counted for a key in the current window, and how long it stays locked.
SELECT failures, GREATEST(0, EXTRACT(EPOCH FROM (locked_until - now())) * 1000)::float8 AS locked_ms
FROM login_failures WHERE key = :key;

-- name: login-failure-add
-- Counts one failed sign-in for a key; a window older than :window_s starts again; at :max failures the
-- key is locked for the rest of the window.
INSERT INTO login_failures (key, failures, window_start) VALUES (:key, 1, now())
ON CONFLICT (key) DO UPDATE SET
  failures = CASE WHEN login_failures.window_start < now() - make_interval(secs => :window_s) THEN 1 ELSE login_failures.failures + 1 END,
  window_start = CASE WHEN login_failures.window_start < now() - make_interval(secs => :window_s) THEN now() ELSE login_failures.window_start END,
  locked_until = CASE
    WHEN login_failures.window_start >= now() - make_interval(secs => :window_s) AND login_failures.failures + 1 >= :max
    THEN login_failures.window_start + make_interval(secs => :window_s) ELSE NULL END;

-- name: login-failure-clear
DELETE FROM login_failures WHERE key = :key;

-- name: login-failures-delete-old
-- Forgets counts whose window ended (and whose lock, if any, ran out) a day ago.
DELETE FROM login_failures
WHERE window_start < now() - make_interval(secs => :window_s) - interval '1 day'
  AND (locked_until IS NULL OR locked_until < now());
