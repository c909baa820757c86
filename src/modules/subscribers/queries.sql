-- Subscribers and their subscriptions (reference §4, §19).

-- name: subscriber-query
-- One page of subscribers, optionally restricted to members of any of :list_ids (each subscriber once)
-- with an optional subscription status, and a case-insensitive search on name or e-mail.
SELECT s.id, s.created_at, s.updated_at, s.uuid, s.email, s.name, s.attribs, s.status
FROM subscribers s
WHERE (cardinality(:list_ids::int[]) = 0 OR EXISTS (
        SELECT 1 FROM subscriber_lists sl
        WHERE sl.subscriber_id = s.id AND sl.list_id = ANY(:list_ids::int[])
          AND (:subscription_status::text = '' OR sl.status = :subscription_status::text)))
  AND (:search::text = '' OR s.email LIKE '%' || :search::text || '%' ESCAPE '\'
       OR lower(s.name) LIKE '%' || :search::text || '%' ESCAPE '\')
ORDER BY %order%
LIMIT :limit::int OFFSET :offset::int;

-- name: subscriber-count
-- Number of subscribers matching the same filters as subscriber-query.
SELECT count(*)::int AS total
FROM subscribers s
WHERE (cardinality(:list_ids::int[]) = 0 OR EXISTS (
        SELECT 1 FROM subscriber_lists sl
        WHERE sl.subscriber_id = s.id AND sl.list_id = ANY(:list_ids::int[])
          AND (:subscription_status::text = '' OR sl.status = :subscription_status::text)))
  AND (:search::text = '' OR s.email LIKE '%' || :search::text || '%' ESCAPE '\'
       OR lower(s.name) LIKE '%' || :search::text || '%' ESCAPE '\');

-- name: subscriber-memberships
-- The list-membership objects of the given subscribers, one row per subscription.
SELECT sl.subscriber_id, sl.status AS subscription_status, sl.created_at AS subscription_created_at,
       sl.updated_at AS subscription_updated_at, l.id, l.uuid, l.name, l.type, l.optin, l.status, l.tags,
       l.created_at, l.updated_at
FROM subscriber_lists sl JOIN lists l ON l.id = sl.list_id
WHERE sl.subscriber_id = ANY(:ids::int[])
ORDER BY sl.subscriber_id, l.id;

-- name: subscriber-get
SELECT id, created_at, updated_at, uuid, email, name, attribs, status FROM subscribers WHERE id = :id;

-- name: subscriber-get-by-uuid
SELECT id, created_at, updated_at, uuid, email, name, attribs, status FROM subscribers WHERE uuid = :uuid::uuid;

-- name: subscriber-insert
INSERT INTO subscribers (email, name, attribs, status)
VALUES (:email, :name, :attribs::jsonb, :status)
RETURNING id, created_at, updated_at, uuid, email, name, attribs, status;

-- name: subscription-add
-- Adds memberships; existing ones are left as they are.
INSERT INTO subscriber_lists (subscriber_id, list_id, status)
SELECT :subscriber_id, l.id, :status FROM lists l WHERE l.id = ANY(:list_ids::int[])
ON CONFLICT (subscriber_id, list_id) DO NOTHING;

-- name: subscriber-delete
DELETE FROM subscribers WHERE id = ANY(:ids::int[]) RETURNING id;
