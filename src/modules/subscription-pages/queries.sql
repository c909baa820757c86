-- Public pages reached from links in e-mails (reference §17).

-- name: campaign-by-uuid
SELECT c.id, c.uuid, c.name, c.subject,
       coalesce((SELECT array_agg(cl.list_id) FROM campaign_lists cl WHERE cl.campaign_id = c.id AND cl.list_id IS NOT NULL), '{}') AS list_ids
FROM campaigns c WHERE c.uuid = :uuid::uuid;

-- name: subscriber-lists-of-campaign
-- The subscriber's memberships on the given lists, with list names, for the unsubscribe page.
SELECT l.id, l.name, l.type, sl.status
FROM subscriber_lists sl JOIN lists l ON l.id = sl.list_id
WHERE sl.subscriber_id = :subscriber_id AND sl.list_id = ANY(:list_ids::int[])
ORDER BY l.name;

-- name: unsubscribe-from-lists
-- Unsubscribes the subscriber from the given lists (memberships that are not already unsubscribed).
UPDATE subscriber_lists SET status = 'unsubscribed', updated_at = now()
WHERE subscriber_id = :subscriber_id AND list_id = ANY(:list_ids::int[]) AND status <> 'unsubscribed'
RETURNING list_id;

-- name: subscriber-public-memberships
-- The subscriber's memberships of lists that are not private (the preferences page never shows those).
SELECT l.uuid::text AS uuid, l.name, sl.status
FROM subscriber_lists sl JOIN lists l ON l.id = sl.list_id
WHERE sl.subscriber_id = :subscriber_id AND l.type <> 'private'
ORDER BY l.name, l.id;

-- name: preferences-save
-- Saves the preferences form: the new name, and every non-private membership not kept is unsubscribed.
WITH renamed AS (
  UPDATE subscribers SET name = :name, updated_at = now() WHERE id = :subscriber_id AND name <> :name RETURNING id
)
UPDATE subscriber_lists sl SET status = 'unsubscribed', updated_at = now()
FROM lists l
WHERE l.id = sl.list_id AND sl.subscriber_id = :subscriber_id AND l.type <> 'private'
  AND sl.status <> 'unsubscribed' AND NOT (l.uuid::text = ANY(:keep::text[]))
RETURNING sl.list_id;
