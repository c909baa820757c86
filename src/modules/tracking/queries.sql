-- Views, clicks and analytics (listmonk reference §7.10, §17).

-- name: view-insert
-- Records an open of a known campaign. The subscriber is stored only with individual tracking on.
INSERT INTO campaign_views (campaign_id, subscriber_id)
SELECT c.id, (SELECT s.id FROM subscribers s WHERE :individual::bool AND s.uuid = :subscriber_uuid::uuid)
FROM campaigns c WHERE c.uuid = :campaign_uuid::uuid;

-- name: click-target
-- The link behind a tracking URL, the campaign of the URL, and whether that campaign registered it.
SELECT l.id AS link_id, l.url, c.id AS campaign_id,
       EXISTS (SELECT 1 FROM campaign_links cl WHERE cl.campaign_id = c.id AND cl.link_id = l.id) AS registered
FROM links l LEFT JOIN campaigns c ON c.uuid = :campaign_uuid::uuid
WHERE l.uuid = :link_uuid::uuid;

-- name: click-insert
-- Records a click. The subscriber is stored only with individual tracking on.
INSERT INTO link_clicks (campaign_id, link_id, subscriber_id)
VALUES (:campaign_id::int, :link_id::int,
        (SELECT s.id FROM subscribers s WHERE :individual::bool AND s.uuid = :subscriber_uuid::uuid));

-- name: analytics-views
-- Views per campaign and hour (range under 7 days) or day; unique subscribers per bucket when
-- :unique (individual tracking), else every row (listmonk get-campaign-analytics-counts).
SELECT campaign_id, date_trunc(:bucket, created_at) AS "timestamp",
       CASE WHEN :unique::bool THEN count(DISTINCT coalesce(subscriber_id::bigint, -id)) ELSE count(*) END::int AS count
FROM campaign_views
WHERE campaign_id = ANY(:ids::int[]) AND created_at >= :from::timestamptz AND created_at < :to::timestamptz
GROUP BY campaign_id, 2 ORDER BY 2, campaign_id;

-- name: analytics-clicks
SELECT campaign_id, date_trunc(:bucket, created_at) AS "timestamp",
       CASE WHEN :unique::bool THEN count(DISTINCT coalesce(subscriber_id::bigint, -id)) ELSE count(*) END::int AS count
FROM link_clicks
WHERE campaign_id = ANY(:ids::int[]) AND created_at >= :from::timestamptz AND created_at < :to::timestamptz
GROUP BY campaign_id, 2 ORDER BY 2, campaign_id;

-- name: analytics-bounces
SELECT campaign_id, date_trunc(:bucket, created_at) AS "timestamp", count(*)::int AS count
FROM bounces
WHERE campaign_id = ANY(:ids::int[]) AND created_at >= :from::timestamptz AND created_at < :to::timestamptz
GROUP BY campaign_id, 2 ORDER BY 2, campaign_id;

-- name: analytics-links
-- The 50 most clicked links of the campaigns in the range.
SELECT l.url, count(*)::int AS count
FROM link_clicks k JOIN links l ON l.id = k.link_id
WHERE k.campaign_id = ANY(:ids::int[]) AND k.created_at >= :from::timestamptz AND k.created_at < :to::timestamptz
GROUP BY l.url ORDER BY count DESC, l.url LIMIT 50;

-- name: analytics-campaigns-outside-scope
-- The campaigns among :ids that target none of the lists in :scope: those a user bounded to these
-- lists may not read (issue 16; listmonk checkCampaignPerm). Probes campaign_lists_key per id.
SELECT c.id FROM campaigns c
WHERE c.id = ANY(:ids::int[])
  AND NOT EXISTS (SELECT 1 FROM campaign_lists cl WHERE cl.campaign_id = c.id AND cl.list_id = ANY(:scope::int[]))
ORDER BY c.id;
