-- Campaigns (spec 4.7, reference §7). Campaign JSON carries view/click/bounce counts and its lists.

-- name: campaign-query
-- One page of campaigns matching the filters, with the total number of matches in every row. :scope
-- (issue 16, src/http/list-scope.ts): only campaigns targeting one of these lists (null: all); probes
-- campaign_lists_key (campaign_id, list_id).
SELECT c.id, c.created_at, c.updated_at, c.started_at, c.to_send, c.sent, c.uuid, c.type, c.name, c.subject,
       c.from_email, CASE WHEN :no_body::bool THEN '' ELSE c.body END AS body,
       CASE WHEN :no_body::bool THEN NULL ELSE c.body_source END AS body_source, c.altbody, c.send_at, c.status,
       c.status_reason, c.content_type, c.tags, c.headers, c.attribs, c.template_id, c.messenger, c.archive,
       c.archive_slug, c.archive_template_id, c.archive_meta,
       (SELECT count(*) FROM campaign_views v WHERE v.campaign_id = c.id)::int AS views,
       (SELECT count(*) FROM link_clicks k WHERE k.campaign_id = c.id)::int AS clicks,
       (SELECT count(*) FROM bounces b WHERE b.campaign_id = c.id)::int AS bounces,
       coalesce((SELECT jsonb_agg(jsonb_build_object('id', cl.list_id, 'name', cl.list_name) ORDER BY cl.list_name)
                 FROM campaign_lists cl WHERE cl.campaign_id = c.id), '[]'::jsonb) AS lists,
       '[]'::jsonb AS media,
       count(*) OVER ()::int AS total
FROM campaigns c
WHERE (:search::text = '' OR lower(c.name || ' ' || c.subject) LIKE '%' || :search::text || '%' ESCAPE '\')
  AND (cardinality(:statuses::text[]) = 0 OR c.status = ANY(:statuses::text[]))
  AND c.tags @> :tags::text[]
  AND (:scope::int[] IS NULL OR EXISTS (
    SELECT 1 FROM campaign_lists scope_cl WHERE scope_cl.campaign_id = c.id AND scope_cl.list_id = ANY(:scope::int[])))
ORDER BY %order%
LIMIT :limit::bigint OFFSET :offset::bigint;

-- name: campaign-count
SELECT count(*)::int AS total FROM campaigns c
WHERE (:search::text = '' OR lower(c.name || ' ' || c.subject) LIKE '%' || :search::text || '%' ESCAPE '\')
  AND (cardinality(:statuses::text[]) = 0 OR c.status = ANY(:statuses::text[]))
  AND c.tags @> :tags::text[]
  AND (:scope::int[] IS NULL OR EXISTS (
    SELECT 1 FROM campaign_lists scope_cl WHERE scope_cl.campaign_id = c.id AND scope_cl.list_id = ANY(:scope::int[])));

-- name: campaign-get
SELECT c.id, c.created_at, c.updated_at, c.started_at, c.to_send, c.sent, c.uuid, c.type, c.name, c.subject,
       c.from_email, c.body, c.body_source, c.altbody, c.send_at, c.status, c.status_reason, c.content_type, c.tags,
       c.headers, c.attribs, c.template_id, c.messenger, c.archive, c.archive_slug, c.archive_template_id,
       c.archive_meta,
       (SELECT count(*) FROM campaign_views v WHERE v.campaign_id = c.id)::int AS views,
       (SELECT count(*) FROM link_clicks k WHERE k.campaign_id = c.id)::int AS clicks,
       (SELECT count(*) FROM bounces b WHERE b.campaign_id = c.id)::int AS bounces,
       coalesce((SELECT jsonb_agg(jsonb_build_object('id', cl.list_id, 'name', cl.list_name) ORDER BY cl.list_name)
                 FROM campaign_lists cl WHERE cl.campaign_id = c.id), '[]'::jsonb) AS lists,
       '[]'::jsonb AS media
FROM campaigns c
WHERE c.id = :id;

-- name: campaign-insert
INSERT INTO campaigns (name, subject, from_email, body, body_source, altbody, content_type, send_at, headers,
                       attribs, tags, type, messenger, template_id, archive, archive_slug, archive_template_id,
                       archive_meta)
VALUES (:name, :subject, :from_email, :body, :body_source, :altbody, :content_type, :send_at::timestamptz,
        :headers::jsonb, :attribs::jsonb, :tags::text[], :type, :messenger, :template_id::int, :archive::bool,
        :archive_slug, :archive_template_id::int, :archive_meta::jsonb)
RETURNING id;

-- name: campaign-lock
-- Locks the campaign row for an update, so its status cannot change (engine, other requests) until
-- the transaction ends; statements after it see the latest committed row.
SELECT id, status FROM campaigns WHERE id = :id FOR UPDATE;

-- name: campaign-update
-- Writes every editable field (the service merged omitted ones from the stored campaign). A scheduled
-- campaign whose send_at is cleared goes back to draft (reference §7.4).
UPDATE campaigns SET
  name = :name, subject = :subject, from_email = :from_email, body = :body, body_source = :body_source,
  altbody = :altbody, content_type = :content_type, send_at = :send_at::timestamptz, headers = :headers::jsonb,
  attribs = :attribs::jsonb, tags = :tags::text[], type = :type, messenger = :messenger,
  template_id = :template_id::int, archive = :archive::bool, archive_slug = :archive_slug,
  archive_template_id = :archive_template_id::int, archive_meta = :archive_meta::jsonb,
  status = CASE WHEN status = 'scheduled' AND :send_at::timestamptz IS NULL THEN 'draft' ELSE status END,
  updated_at = now()
WHERE id = :id
RETURNING id;

-- name: campaign-archive-set
-- The public-archive settings; allowed in any status (an archive is mostly made of sent campaigns).
UPDATE campaigns SET archive = :archive::bool, archive_slug = :archive_slug,
  archive_template_id = :archive_template_id::int, archive_meta = :archive_meta::jsonb, updated_at = now()
WHERE id = :id
RETURNING archive, archive_slug, archive_template_id, archive_meta;

-- name: campaign-delete
-- Deletes a campaign only while it is scheduled and has never started (spec part 3); one statement,
-- so the scheduler cannot start it in between.
DELETE FROM campaigns WHERE id = :id AND status = 'scheduled' AND started_at IS NULL
RETURNING id;

-- name: campaign-running-stats
-- Progress of running campaigns (all of them when :ids is empty), computed from the database so any
-- instance answers the same. Rates are messages per minute: `rate` over the last minute (the
-- send-rate ring of migration 0004; scaled up when the campaign started less than a minute ago),
-- `net_rate` the average since started_at.
SELECT c.id, c.status, c.to_send, c.sent, c.started_at, c.updated_at,
       CASE WHEN c.started_at IS NULL THEN 0 ELSE round(
         coalesce((SELECT sum(r.sent) FROM campaign_send_rate r
                   WHERE r.campaign_id = c.id AND r.bucket > now() - interval '60 seconds'), 0) * 60
         / least(60, greatest(1, extract(epoch FROM now() - c.started_at)))::numeric, 2)::float8 END AS rate,
       CASE WHEN c.started_at IS NULL THEN 0 ELSE round(
         c.sent * 60 / greatest(1, extract(epoch FROM now() - c.started_at))::numeric, 2)::float8 END AS net_rate
FROM campaigns c
WHERE c.status = 'running' AND (cardinality(:ids::int[]) = 0 OR c.id = ANY(:ids::int[]))
  AND (:scope::int[] IS NULL OR EXISTS (
    SELECT 1 FROM campaign_lists scope_cl WHERE scope_cl.campaign_id = c.id AND scope_cl.list_id = ANY(:scope::int[])))
ORDER BY c.id;

-- name: campaign-subscribers-by-email
-- Subscribers with the given (lower-cased) e-mail addresses, for test sends.
SELECT id, uuid, email, name, status, attribs, created_at, updated_at
FROM subscribers WHERE email = ANY(:emails::text[])
ORDER BY id;

-- name: campaign-lists-clear
DELETE FROM campaign_lists WHERE campaign_id = :campaign_id;

-- name: campaign-lists-add
-- Targets the given lists, keeping a copy of each list's name (it survives the list's deletion).
INSERT INTO campaign_lists (campaign_id, list_id, list_name)
SELECT :campaign_id, l.id, l.name FROM lists l WHERE l.id = ANY(:list_ids::int[])
ON CONFLICT (campaign_id, list_id) DO NOTHING;

-- name: campaign-in-scope
-- Whether campaign :id targets one of the lists in :scope (listmonk campaign-has-lists); no row when
-- the campaign does not exist.
SELECT EXISTS (SELECT 1 FROM campaign_lists cl WHERE cl.campaign_id = c.id AND cl.list_id = ANY(:scope::int[])) AS allowed
FROM campaigns c WHERE c.id = :id;

-- name: campaign-status-get
SELECT status, send_at FROM campaigns WHERE id = :id;

-- name: campaign-status-set
-- Moves the campaign from :from to :to, only if it is still in :from (another request or the engine
-- may have moved it meanwhile). Entering `running` starts a new run and sets started_at once.
UPDATE campaigns SET
  status = :to,
  status_reason = '',
  run_no = run_no + CASE WHEN :to = 'running' THEN 1 ELSE 0 END,
  started_at = CASE WHEN :to = 'running' THEN coalesce(started_at, now()) ELSE started_at END,
  updated_at = now()
WHERE id = :id AND status = :from
RETURNING id;
