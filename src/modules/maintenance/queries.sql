-- Maintenance (listmonk's Settings → Maintenance, reference §"maintenance"): garbage collection of
-- subscribers, unconfirmed subscriptions and analytics, and the analytics export.
--
-- Every delete works on one batch of :size rows, walking the primary key upwards from :after, so a
-- million rows are never locked by one statement: each batch commits on its own and the caller loops
-- until a batch finds nothing (`last` is null). The maintained totals (subscriber_totals,
-- list_subscriber_counts) follow through their statement-level triggers (migrations 0001, 0003), and
-- ON DELETE CASCADE / SET NULL keep subscriptions, bounces, views and clicks consistent.
-- `last` is the highest key the batch looked at (even rows that were not deleted after all), so the
-- next batch starts after it; `count` is how many rows this batch deleted.

-- name: subscribers-delete-orphan-batch
-- Subscribers without any subscription (listmonk delete-orphan-subscribers). The condition is checked
-- again by the DELETE, so a subscriber who gained a list since the batch was chosen is kept.
WITH batch AS (
  SELECT s.id FROM subscribers s
  WHERE s.id > :after::bigint AND NOT EXISTS (SELECT 1 FROM subscriber_lists sl WHERE sl.subscriber_id = s.id)
  ORDER BY s.id LIMIT :size::int
), deleted AS (
  DELETE FROM subscribers s USING batch b
  WHERE s.id = b.id AND NOT EXISTS (SELECT 1 FROM subscriber_lists sl WHERE sl.subscriber_id = s.id)
  RETURNING s.id
)
SELECT (SELECT count(*) FROM deleted)::int AS count, (SELECT max(id) FROM batch) AS last;

-- name: subscribers-delete-blocklisted-batch
-- Blocklisted subscribers (listmonk delete-blocklisted-subscribers).
WITH batch AS (
  SELECT id FROM subscribers WHERE id > :after::bigint AND status = 'blocklisted' ORDER BY id LIMIT :size::int
), deleted AS (
  DELETE FROM subscribers s USING batch b WHERE s.id = b.id AND s.status = 'blocklisted' RETURNING s.id
)
SELECT (SELECT count(*) FROM deleted)::int AS count, (SELECT max(id) FROM batch) AS last;

-- name: subscriptions-delete-unconfirmed-batch
-- Unconfirmed subscriptions to double opt-in lists created before :before (listmonk
-- delete-unconfirmed-subscriptions): opt-ins never confirmed. The subscribers themselves stay.
-- Walks the primary key (subscriber_id, list_id); `last_subscriber`/`last_list` is the batch's end.
WITH batch AS (
  SELECT sl.subscriber_id, sl.list_id FROM subscriber_lists sl
  WHERE (sl.subscriber_id, sl.list_id) > (:after_subscriber::int, :after_list::int)
    AND sl.status = 'unconfirmed' AND sl.created_at < :before::timestamptz
    AND sl.list_id IN (SELECT id FROM lists WHERE optin = 'double')
  ORDER BY sl.subscriber_id, sl.list_id LIMIT :size::int
), deleted AS (
  DELETE FROM subscriber_lists sl USING batch b
  WHERE sl.subscriber_id = b.subscriber_id AND sl.list_id = b.list_id AND sl.status = 'unconfirmed'
  RETURNING 1
), tail AS (
  SELECT subscriber_id, list_id FROM batch ORDER BY subscriber_id DESC, list_id DESC LIMIT 1
)
SELECT (SELECT count(*) FROM deleted)::int AS count,
       (SELECT subscriber_id FROM tail) AS last_subscriber, (SELECT list_id FROM tail) AS last_list;

-- name: views-delete-batch
-- Campaign views recorded before :before (listmonk delete-campaign-views).
WITH batch AS (
  SELECT id FROM campaign_views WHERE id > :after::bigint AND created_at < :before::timestamptz ORDER BY id LIMIT :size::int
), deleted AS (
  DELETE FROM campaign_views v USING batch b WHERE v.id = b.id RETURNING v.id
)
SELECT (SELECT count(*) FROM deleted)::int AS count, (SELECT max(id) FROM batch) AS last;

-- name: clicks-delete-batch
-- Link clicks recorded before :before (listmonk delete-campaign-link-clicks).
WITH batch AS (
  SELECT id FROM link_clicks WHERE id > :after::bigint AND created_at < :before::timestamptz ORDER BY id LIMIT :size::int
), deleted AS (
  DELETE FROM link_clicks c USING batch b WHERE c.id = b.id RETURNING c.id
)
SELECT (SELECT count(*) FROM deleted)::int AS count, (SELECT max(id) FROM batch) AS last;

-- name: views-export-batch
-- One batch of views recorded in [:since, :until) after id :after, with the campaign and subscriber
-- (listmonk export-campaign-views; keyset instead of OFFSET so late batches stay cheap).
SELECT v.id, v.campaign_id,
       coalesce(c.uuid::text, '') AS campaign_uuid, coalesce(c.name, '') AS campaign_name,
       coalesce(v.subscriber_id, 0) AS subscriber_id, coalesce(s.uuid::text, '') AS subscriber_uuid,
       coalesce(s.email, '') AS email, coalesce(s.name, '') AS subscriber_name, v.created_at
FROM campaign_views v
LEFT JOIN campaigns c ON c.id = v.campaign_id
LEFT JOIN subscribers s ON s.id = v.subscriber_id
WHERE v.id > :after::bigint AND v.created_at >= :since::timestamptz AND v.created_at < :until::timestamptz
ORDER BY v.id LIMIT :size::int;

-- name: clicks-export-batch
-- One batch of link clicks recorded in [:since, :until) after id :after, with the campaign, subscriber
-- and URL (listmonk export-campaign-link-clicks).
SELECT k.id, coalesce(k.campaign_id, 0) AS campaign_id,
       coalesce(c.uuid::text, '') AS campaign_uuid, coalesce(c.name, '') AS campaign_name,
       coalesce(k.subscriber_id, 0) AS subscriber_id, coalesce(s.uuid::text, '') AS subscriber_uuid,
       coalesce(s.email, '') AS email, coalesce(s.name, '') AS subscriber_name, coalesce(l.url, '') AS url, k.created_at
FROM link_clicks k
LEFT JOIN campaigns c ON c.id = k.campaign_id
LEFT JOIN links l ON l.id = k.link_id
LEFT JOIN subscribers s ON s.id = k.subscriber_id
WHERE k.id > :after::bigint AND k.created_at >= :since::timestamptz AND k.created_at < :until::timestamptz
ORDER BY k.id LIMIT :size::int;
