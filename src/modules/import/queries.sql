-- The subscriber import (spec 4.6, reference §6). State lives in the single `imports` row; every write
-- by a worker is conditioned on its run still being the current, active one.

-- name: import-get
SELECT run_id, name, total, imported, skipped, line, stream_lines, status FROM imports WHERE id = 1;

-- name: import-claim
-- Starts a run unless one is active (one import at a time across instances).
UPDATE imports
SET run_id = :run_id::uuid, name = :name, status = 'importing', params = :params::jsonb, total = 0, imported = 0,
    skipped = 0, line = 0, stream_lines = '{}', owner = :owner, heartbeat_at = now(), started_at = now(), finished_at = NULL, updated_at = now()
WHERE id = 1 AND status NOT IN ('importing', 'stopping')
RETURNING run_id;

-- name: import-logs-prune
-- Drops the log of every run but the given one.
DELETE FROM import_logs WHERE run_id <> :run_id::uuid;

-- name: import-request-stop
UPDATE imports SET status = 'stopping', updated_at = now()
WHERE id = 1 AND status = 'importing'
RETURNING run_id;

-- name: import-clear
-- Resets a finished, failed or empty import to `none` and drops its log.
WITH cleared AS (
  UPDATE imports
  SET run_id = NULL, name = '', status = 'none', params = '{}', total = 0, imported = 0, skipped = 0, line = 0,
      stream_lines = '{}', owner = NULL, heartbeat_at = NULL, started_at = NULL, finished_at = NULL, updated_at = now()
  WHERE id = 1 AND status IN ('none', 'finished', 'failed')
  RETURNING 1
)
DELETE FROM import_logs WHERE EXISTS (SELECT 1 FROM cleared);

-- name: import-heartbeat
-- Proof of life of the worker; answers the status so a stop requested on any instance is seen.
UPDATE imports SET heartbeat_at = now()
WHERE id = 1 AND run_id = :run_id::uuid AND status IN ('importing', 'stopping')
RETURNING status;

-- name: import-set-total
UPDATE imports SET total = :total, updated_at = now()
WHERE id = 1 AND run_id = :run_id::uuid AND status IN ('importing', 'stopping');

-- name: import-progress
-- Counts one committed batch of writer :stream (1-based, of :streams), in the batch's transaction:
-- the writer's high-water mark becomes :line, and `line` the least mark of all writers (every row up
-- to it is committed). No row means the run is no longer active. The batches of a run commit one at a
-- time (the importer's commit gate), so the marks read here are current.
UPDATE imports i
SET imported = imported + :imported, skipped = skipped + :skipped,
    stream_lines = m.marks,
    line = (SELECT min(x) FROM unnest(m.marks) x),
    heartbeat_at = now(), updated_at = now()
FROM (
  SELECT array_agg(CASE WHEN k = :stream::int THEN :line::int ELSE coalesce(stream_lines[k], 0) END ORDER BY k) AS marks
  FROM imports, generate_series(1, :streams::int) k
  WHERE id = 1
) m
WHERE i.id = 1 AND i.run_id = :run_id::uuid AND i.status IN ('importing', 'stopping')
RETURNING i.status;

-- name: import-end
-- Ends a run as `finished` or `failed`; `total` is kept when :total is null.
UPDATE imports
SET status = :status::text, total = coalesce(:total::int, total), finished_at = now(), heartbeat_at = NULL, updated_at = now()
WHERE id = 1 AND run_id = :run_id::uuid AND status IN ('importing', 'stopping')
RETURNING run_id, name, line, stream_lines, imported, skipped;

-- name: import-recover
-- Ends runs whose worker is gone: this instance's own after a restart, any whose instance stopped
-- sending heartbeats, or every active one (:all, the single-process embedded store). A run that was
-- stopping ends as finished (the stop happened), any other as failed. :except (nullable) is the run the
-- asking process is itself running (its heartbeats may have lapsed while the database was away).
UPDATE imports
SET status = CASE WHEN status = 'stopping' THEN 'finished' ELSE 'failed' END,
    finished_at = now(), heartbeat_at = NULL, updated_at = now()
WHERE id = 1 AND status IN ('importing', 'stopping')
  AND (:all::boolean OR owner = :owner OR heartbeat_at < now() - make_interval(secs => :stale_seconds))
  AND (:except::uuid IS NULL OR run_id <> :except::uuid)
RETURNING run_id, name, status, line, stream_lines, imported, skipped;

-- name: import-log
INSERT INTO import_logs (run_id, message) SELECT :run_id::uuid, unnest(:messages::text[]);

-- name: import-log-read
SELECT l.created_at, l.message
FROM import_logs l JOIN imports i ON i.id = 1 AND l.run_id = i.run_id
ORDER BY l.id;

-- name: import-lists-existing
SELECT id FROM lists WHERE id = ANY(:ids::int[]);

-- name: import-staging-create
-- Per-session staging tables; their rows vanish at every commit, so each batch starts empty.
CREATE TEMP TABLE IF NOT EXISTS import_staging (line integer NOT NULL, email text NOT NULL, name text NOT NULL, attribs jsonb NOT NULL) ON COMMIT DELETE ROWS;

-- name: import-targets-create
CREATE TEMP TABLE IF NOT EXISTS import_targets (id integer NOT NULL, status text NOT NULL) ON COMMIT DELETE ROWS;

-- name: import-upsert
-- Writes the staged batch. Each e-mail once (the first occurrence, or the last one when overwriting);
-- new subscribers get :new_status; existing ones change only with :overwrite (name, attribs, and
-- `blocklisted` in blocklist mode). The subscribers whose memberships change next are collected in
-- import_targets: those written, plus the untouched existing ones when :keep_existing (subscribe mode).
-- The untouched ones are the e-mails the insert did not return (a hash anti-join), so only they are
-- looked up in subscribers: a batch of new addresses costs no second index probe per row.
WITH src AS (
  SELECT DISTINCT ON (email) email, name, attribs FROM import_staging
  ORDER BY email, CASE WHEN :overwrite::boolean THEN -line ELSE line END
),
up AS (
  INSERT INTO subscribers AS s (email, name, attribs, status)
  SELECT email, name, attribs, :new_status::text FROM src
  ON CONFLICT (email) DO UPDATE
    SET name = EXCLUDED.name, attribs = EXCLUDED.attribs,
        status = CASE WHEN :blocklist::boolean THEN 'blocklisted' ELSE s.status END,
        updated_at = now()
    WHERE :overwrite::boolean
  RETURNING s.id, s.status, s.email
),
kept AS MATERIALIZED (
  SELECT src.email FROM src
  WHERE :keep_existing::boolean AND NOT :overwrite::boolean
    AND NOT EXISTS (SELECT 1 FROM up WHERE up.email = src.email)
)
INSERT INTO import_targets (id, status)
SELECT id, status FROM up
UNION ALL
SELECT s.id, s.status FROM kept JOIN subscribers s ON s.email = kept.email;

-- name: import-unsubscribe-blocklisted
-- Blocklist mode: every subscription of a subscriber blocklisted by this batch is unsubscribed.
UPDATE subscriber_lists sl SET status = 'unsubscribed', updated_at = now()
FROM import_targets t
WHERE sl.subscriber_id = t.id AND t.status = 'blocklisted' AND sl.status <> 'unsubscribed';

-- name: import-subscribe
-- Adds the batch's subscribers to the lists; blocklisted subscribers always get `unsubscribed`. An
-- existing membership changes only with :overwrite_status.
INSERT INTO subscriber_lists AS sl (subscriber_id, list_id, status)
SELECT t.id, l.id, CASE WHEN t.status = 'blocklisted' THEN 'unsubscribed' ELSE :status::text END
FROM import_targets t JOIN lists l ON l.id = ANY(:list_ids::int[])
ON CONFLICT (subscriber_id, list_id) DO UPDATE
  SET status = EXCLUDED.status, updated_at = now()
  WHERE :overwrite_status::boolean AND sl.status <> EXCLUDED.status;
