-- The audit log (issue 16 "Identity" item 5): who changed what and when.

-- name: audit-insert
INSERT INTO audit_log (user_id, username, action, resource_type, resource_id, method, path, status, ip)
VALUES (:user_id::int, :username, :action, :resource_type, :resource_id::text, :method, :path, :status::int, :ip::text);

-- name: audit-query
-- One page of entries matching the filters (null: any), newest first, with the total count of matches.
SELECT id, created_at, user_id, username, action, resource_type, resource_id, method, path, status, ip,
       count(*) OVER ()::int AS total
FROM audit_log
WHERE (:user_id::int IS NULL OR user_id = :user_id::int)
  AND (:username::text IS NULL OR username = :username::text)
  AND (:resource_type::text IS NULL OR resource_type = :resource_type::text)
  AND (:resource_id::text IS NULL OR resource_id = :resource_id::text)
  AND (:action::text IS NULL OR action = :action::text)
  AND (:from::timestamptz IS NULL OR created_at >= :from::timestamptz)
  AND (:to::timestamptz IS NULL OR created_at <= :to::timestamptz)
ORDER BY created_at DESC, id DESC
LIMIT :limit::bigint OFFSET :offset::bigint;

-- name: audit-count
-- Number of entries matching the filters (used when the requested page is past the end).
SELECT count(*)::int AS total
FROM audit_log
WHERE (:user_id::int IS NULL OR user_id = :user_id::int)
  AND (:username::text IS NULL OR username = :username::text)
  AND (:resource_type::text IS NULL OR resource_type = :resource_type::text)
  AND (:resource_id::text IS NULL OR resource_id = :resource_id::text)
  AND (:action::text IS NULL OR action = :action::text)
  AND (:from::timestamptz IS NULL OR created_at >= :from::timestamptz)
  AND (:to::timestamptz IS NULL OR created_at <= :to::timestamptz);

-- name: audit-trim
-- Deletes up to :limit entries older than :days days. Rows another instance is deleting at the same
-- moment are skipped, not waited for, so instances trimming together neither block nor fail; a row is
-- deleted once whoever gets it.
WITH deleted AS (
  DELETE FROM audit_log
  WHERE id IN (
    SELECT id FROM audit_log
    WHERE created_at < now() - make_interval(days => :days::int)
    LIMIT :limit::int
    FOR UPDATE SKIP LOCKED
  )
  RETURNING 1
)
SELECT count(*)::int AS deleted FROM deleted;
