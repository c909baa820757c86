-- Recent server log lines of every instance (listmonk's Settings → Logs; table log_lines of migration
-- 0011). Each instance writes its own lines in batches and keeps its last :keep of them.

-- name: log-lines-insert
-- One batch of pino lines (a JSON array of the line objects, each with `time` in ms and `level`).
INSERT INTO log_lines (instance, created_at, level, line)
SELECT :instance, to_timestamp((e->>'time')::double precision / 1000), (e->>'level')::int, e
FROM jsonb_array_elements(:lines::jsonb) AS e;

-- name: log-lines-trim
-- Keeps this instance's :keep newest lines (walks the (instance, id) index backwards).
DELETE FROM log_lines
WHERE instance = :instance AND id <= (
  SELECT id FROM log_lines WHERE instance = :instance ORDER BY id DESC OFFSET :keep::int LIMIT 1
);

-- name: log-lines-expire
-- Lines older than :max_age_s seconds, of any instance: instances that stopped (a random instance id
-- is new at every start) trim nothing any more, so their lines go once they are this old.
DELETE FROM log_lines WHERE created_at < now() - make_interval(secs => :max_age_s::int);

-- name: log-lines-recent
-- The :limit newest lines of all instances, oldest first.
SELECT instance, created_at, level, line FROM (
  SELECT id, instance, created_at, level, line FROM log_lines ORDER BY created_at DESC, id DESC LIMIT :limit::int
) recent
ORDER BY created_at, id;
