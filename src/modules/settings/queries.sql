-- Settings (reference §12): one row per key, the value as JSON.

-- name: settings-all
SELECT key, value, updated_at FROM settings;

-- name: settings-version
-- Changes whenever any setting is written; instances poll it to apply other instances' changes.
SELECT coalesce(max(updated_at), 'epoch'::timestamptz) AS version, count(*)::int AS n FROM settings;

-- name: setting-seed
-- Writes a default only when the key has no value yet (first start, or a key added by an upgrade).
INSERT INTO settings (key, value) VALUES (:key, :value::jsonb) ON CONFLICT (key) DO NOTHING;

-- name: setting-write
INSERT INTO settings (key, value, updated_at) VALUES (:key, :value::jsonb, clock_timestamp())
ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at;
