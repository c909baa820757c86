-- Subscribers and their subscriptions (reference §4, §19; spec part 3). Filtered reads live in
-- filter.sql (they run through the segmentation guard).

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

-- name: subscriber-get-for-update
-- The subscriber row, locked until the end of the transaction (updates read, check, then write).
SELECT id, created_at, updated_at, uuid, email, name, attribs, status FROM subscribers WHERE id = :id FOR UPDATE;

-- name: subscriber-get-by-uuid
SELECT id, created_at, updated_at, uuid, email, name, attribs, status FROM subscribers WHERE uuid = :uuid::uuid;

-- name: subscriber-insert
INSERT INTO subscribers (email, name, attribs, status)
VALUES (:email, :name, :attribs::jsonb, :status)
RETURNING id, created_at, updated_at, uuid, email, name, attribs, status;

-- name: subscriber-update
UPDATE subscribers SET email = :email, name = :name, attribs = :attribs::jsonb, status = :status, updated_at = now()
WHERE id = :id
RETURNING id;

-- name: subscription-add
-- Adds memberships of a new subscriber; existing ones are left as they are.
INSERT INTO subscriber_lists (subscriber_id, list_id, status)
SELECT :subscriber_id, l.id, :status FROM lists l WHERE l.id = ANY(:list_ids::int[]) ORDER BY l.id
ON CONFLICT (subscriber_id, list_id) DO NOTHING
RETURNING list_id, status;

-- name: subscriptions-replace
-- Full replacement of one subscriber's memberships (PUT/PATCH with `lists`, reference §4.4): memberships
-- on other lists are deleted; new ones get :status; existing `confirmed` and `unsubscribed` ones keep
-- their status unless :status is `unsubscribed` (blocklisted subscriber); `unconfirmed` ones take
-- :status. Returns the memberships written (inserted or changed). :manageable (null: all) bounds the
-- deletion to the lists the user may manage: memberships of other lists stay (listmonk
-- UpdateSubscriberWithLists with permitted lists, issue 16).
WITH removed AS (
  DELETE FROM subscriber_lists
  WHERE subscriber_id = :subscriber_id AND NOT (list_id = ANY(:list_ids::int[]))
    AND (:manageable::int[] IS NULL OR list_id = ANY(:manageable::int[]))
)
INSERT INTO subscriber_lists AS sl (subscriber_id, list_id, status)
SELECT :subscriber_id, l.id, :status::text FROM lists l WHERE l.id = ANY(:list_ids::int[]) ORDER BY l.id
ON CONFLICT (subscriber_id, list_id) DO UPDATE SET status = EXCLUDED.status, updated_at = now()
WHERE sl.status <> EXCLUDED.status AND (EXCLUDED.status = 'unsubscribed' OR sl.status = 'unconfirmed')
RETURNING list_id, status;

-- name: subscriptions-upsert
-- `add` (reference §4.7, issue 3 §1, issue 15 item 3): inserts memberships of the subscribers × lists
-- with :status and sets existing ones to it; without a :status (null), new memberships are
-- `unconfirmed` and existing ones keep theirs, as in listmonk. A blocklisted subscriber's memberships
-- stay `unsubscribed`. Rows are written in key order so concurrent bulk changes cannot deadlock.
-- Returns the memberships written.
INSERT INTO subscriber_lists AS sl (subscriber_id, list_id, status)
SELECT s.id, l.id, CASE WHEN s.status = 'blocklisted' THEN 'unsubscribed' ELSE COALESCE(:status::text, 'unconfirmed') END
FROM subscribers s CROSS JOIN lists l
WHERE s.id = ANY(:ids::int[]) AND l.id = ANY(:list_ids::int[])
ORDER BY s.id, l.id
ON CONFLICT (subscriber_id, list_id) DO UPDATE SET status = EXCLUDED.status, updated_at = now()
WHERE :status::text IS NOT NULL AND sl.status <> EXCLUDED.status
RETURNING subscriber_id, list_id, status;

-- name: subscriptions-remove
-- `remove`: deletes the memberships (reference §4.7).
DELETE FROM subscriber_lists WHERE subscriber_id = ANY(:ids::int[]) AND list_id = ANY(:list_ids::int[]);

-- name: subscriptions-unsubscribe
-- `unsubscribe`: marks the memberships unsubscribed, keeping them (reference §4.7).
UPDATE subscriber_lists SET status = 'unsubscribed', updated_at = now()
WHERE subscriber_id = ANY(:ids::int[]) AND list_id = ANY(:list_ids::int[]) AND status <> 'unsubscribed';

-- name: subscribers-blocklist
-- Blocklists subscribers: status `blocklisted` and every membership `unsubscribed`, in one statement
-- (reference §4.6). Returns the ids that exist.
WITH target AS (
  SELECT id FROM subscribers WHERE id = ANY(:ids::int[]) ORDER BY id FOR UPDATE
), blocked AS (
  UPDATE subscribers s SET status = 'blocklisted', updated_at = now()
  FROM target t WHERE s.id = t.id AND s.status <> 'blocklisted'
), unsubscribed AS (
  UPDATE subscriber_lists sl SET status = 'unsubscribed', updated_at = now()
  FROM target t WHERE sl.subscriber_id = t.id AND sl.status <> 'unsubscribed'
)
SELECT id FROM target;

-- name: subscriber-ids-existing
-- The ids among :ids that exist.
SELECT id FROM subscribers WHERE id = ANY(:ids::int[]) ORDER BY id;

-- name: subscriber-ids-outside-scope
-- The ids among :ids of subscribers the user may not see: existing, without a membership of any list
-- in :scope (listmonk hasSubPerm / HasSubscriberLists). One primary-key probe per id.
SELECT s.id FROM subscribers s
WHERE s.id = ANY(:ids::int[])
  AND NOT EXISTS (SELECT 1 FROM subscriber_lists sl WHERE sl.subscriber_id = s.id AND sl.list_id = ANY(:scope::int[]))
ORDER BY s.id;

-- name: subscriber-delete
DELETE FROM subscribers WHERE id = ANY(:ids::int[]) RETURNING id;

-- name: subscriber-optin-lists
-- The subscriber's unconfirmed memberships of double opt-in lists: what an opt-in e-mail asks to confirm.
SELECT l.id, l.uuid, l.name, l.type, l.optin, l.tags, l.description
FROM subscriber_lists sl JOIN lists l ON l.id = sl.list_id
WHERE sl.subscriber_id = :subscriber_id AND sl.status = 'unconfirmed' AND l.optin = 'double'
ORDER BY l.id;

-- name: export-subscriptions
-- The subscriber's memberships for the data export; private list names are not disclosed (reference §4.10).
SELECT sl.status AS subscription_status, CASE WHEN l.type = 'private' THEN 'Private list' ELSE l.name END AS name,
       l.type, sl.created_at
FROM subscriber_lists sl JOIN lists l ON l.id = sl.list_id
WHERE sl.subscriber_id = :subscriber_id
ORDER BY l.id;

-- name: export-campaign-views
SELECT c.subject AS campaign, count(*)::int AS views
FROM campaign_views v JOIN campaigns c ON c.id = v.campaign_id
WHERE v.subscriber_id = :subscriber_id
GROUP BY c.id, c.subject ORDER BY c.id;

-- name: export-link-clicks
SELECT k.url, count(*)::int AS clicks
FROM link_clicks lc JOIN links k ON k.id = lc.link_id
WHERE lc.subscriber_id = :subscriber_id
GROUP BY k.id, k.url ORDER BY k.id;
