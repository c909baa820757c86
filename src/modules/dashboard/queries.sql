-- The dashboard (listmonk reference §2.2: mat_dashboard_counts, mat_dashboard_charts). Each query reads
-- maintained figures or small tables only; README.md says which figure comes from where and why.

-- name: dashboard-counts
-- Subscriber total and "in some list" from the delta tables (migrations 0003, 0012); blocklisted from
-- subscribers_status_idx (an index-only count of the blocklisted entries); lists and campaigns are
-- small tables, counted directly.
SELECT
  (SELECT coalesce(sum(delta), 0) FROM subscriber_totals)::bigint AS subscribers_total,
  (SELECT coalesce(sum(delta), 0) FROM subscribed_totals)::bigint AS subscribers_in_lists,
  (SELECT count(*) FROM subscribers WHERE status = 'blocklisted')::bigint AS subscribers_blocklisted,
  l.total AS lists_total, l.private AS lists_private, l.public AS lists_public,
  l.optin_single AS lists_optin_single, l.optin_double AS lists_optin_double,
  (SELECT count(*) FROM campaigns)::bigint AS campaigns_total,
  (SELECT coalesce(jsonb_object_agg(status, n), '{}'::jsonb)
     FROM (SELECT status, count(*)::bigint AS n FROM campaigns GROUP BY status) s) AS campaigns_by_status,
  (SELECT coalesce(sum(sent), 0) FROM campaigns)::bigint AS messages
FROM (
  SELECT count(*)::bigint AS total,
         count(*) FILTER (WHERE type = 'private')::bigint AS private,
         count(*) FILTER (WHERE type = 'public')::bigint AS public,
         count(*) FILTER (WHERE optin = 'single')::bigint AS optin_single,
         count(*) FILTER (WHERE optin = 'double')::bigint AS optin_double
  FROM lists
) l;

-- name: dashboard-engagement-days
-- Campaign views and link clicks per UTC day from :from to :to (dates, both included), from the
-- per-day deltas of migration 0012. Days without any are absent (the service fills them with 0).
SELECT to_char(day, 'YYYY-MM-DD') AS day, kind, sum(delta)::bigint AS count
FROM engagement_days
WHERE day BETWEEN :from::date AND :to::date
GROUP BY day, kind
HAVING sum(delta) <> 0
ORDER BY day, kind;
