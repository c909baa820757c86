-- Lists and their maintained subscription counts (list_subscriber_counts, kept by triggers).

-- name: list-query
-- One page of lists matching the filters, with the total count of matches in every row. :scope is the
-- ids of the lists the user may read (null: all; src/http/list-scope.ts).
SELECT l.id, l.created_at, l.updated_at, l.uuid, l.name, l.type, l.optin, l.status, l.tags, l.description,
       coalesce(c.total, 0)::int AS subscriber_count, coalesce(c.statuses, '{}'::jsonb) AS subscriber_statuses,
       count(*) OVER ()::int AS total
FROM lists l
LEFT JOIN LATERAL (
  SELECT sum(count) AS total, jsonb_object_agg(status, count) FILTER (WHERE count > 0) AS statuses
  FROM list_subscriber_counts WHERE list_id = l.id
) c ON true
WHERE (:search::text = '' OR lower(l.name) LIKE '%' || :search::text || '%' ESCAPE '\')
  AND (:type::text = '' OR l.type = :type::text)
  AND (:optin::text = '' OR l.optin = :optin::text)
  AND (:status::text = '' OR l.status = :status::text)
  AND l.tags @> :tags::text[]
  AND (:scope::int[] IS NULL OR l.id = ANY(:scope::int[]))
ORDER BY %order%
LIMIT :limit::bigint OFFSET :offset::bigint;

-- name: list-count
-- Number of lists matching the filters (used when the requested page is past the end).
SELECT count(*)::int AS total FROM lists l
WHERE (:search::text = '' OR lower(l.name) LIKE '%' || :search::text || '%' ESCAPE '\')
  AND (:type::text = '' OR l.type = :type::text)
  AND (:optin::text = '' OR l.optin = :optin::text)
  AND (:status::text = '' OR l.status = :status::text)
  AND l.tags @> :tags::text[]
  AND (:scope::int[] IS NULL OR l.id = ANY(:scope::int[]));

-- name: list-get
SELECT l.id, l.created_at, l.updated_at, l.uuid, l.name, l.type, l.optin, l.status, l.tags, l.description,
       coalesce(c.total, 0)::int AS subscriber_count, coalesce(c.statuses, '{}'::jsonb) AS subscriber_statuses
FROM lists l
LEFT JOIN LATERAL (
  SELECT sum(count) AS total, jsonb_object_agg(status, count) FILTER (WHERE count > 0) AS statuses
  FROM list_subscriber_counts WHERE list_id = l.id
) c ON true
WHERE l.id = :id;

-- name: list-insert
INSERT INTO lists (name, type, optin, status, tags, description)
VALUES (:name, :type, :optin, :status, :tags::text[], :description)
RETURNING id;

-- name: list-update
-- Null parameters keep the stored value. Campaigns keep a copy of the list name; refresh it.
WITH updated AS (
  UPDATE lists SET
    name = coalesce(:name, name),
    type = coalesce(:type, type),
    optin = coalesce(:optin, optin),
    status = coalesce(:status, status),
    tags = coalesce(:tags::text[], tags),
    description = coalesce(:description, description),
    updated_at = now()
  WHERE id = :id
  RETURNING id, name
), renamed AS (
  UPDATE campaign_lists cl SET list_name = u.name FROM updated u WHERE cl.list_id = u.id
)
SELECT id FROM updated;

-- name: list-delete
-- Deletes lists; their subscriptions go with them, subscribers stay (reference §5).
DELETE FROM lists WHERE id = ANY(:ids::int[]) RETURNING id;

-- name: list-get-many
-- The lists among the given ids that exist, with the fields campaigns and opt-in mails need.
SELECT id, uuid, name, type, optin FROM lists WHERE id = ANY(:ids::int[]) ORDER BY id;
