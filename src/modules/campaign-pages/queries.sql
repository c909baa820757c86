-- Public campaign pages: "view in browser" and the archive (reference §17).

-- name: page-campaign-by-uuid
-- A campaign with what rendering it needs: its template's body, and the archive template's body
-- (its archive template, else its template, else the default).
SELECT c.id, c.uuid, c.name, c.subject, c.from_email, c.body, c.altbody, c.content_type, c.headers, c.tags,
       c.attribs, c.template_id, c.messenger, c.type, c.send_at, c.started_at, c.created_at, c.updated_at,
       c.status, c.sent, c.archive, c.archive_slug, c.archive_meta,
       t.body AS template_body, coalesce(a.body, t.body, d.body) AS archive_template_body
FROM campaigns c
LEFT JOIN templates t ON t.id = c.template_id
LEFT JOIN templates a ON a.id = c.archive_template_id
LEFT JOIN templates d ON d.is_default
WHERE c.uuid = :uuid::uuid;

-- name: page-recipient-by-uuid
-- The subscriber with this UUID when the campaign goes to them: campaign_recipients() is the delivery
-- engine's own rule (enabled subscriber; a membership of one of the campaign's lists that receives
-- mail), asked for this one subscriber id (issue 14 finding 10).
SELECT s.id, s.uuid, s.email, s.name, s.status, s.attribs, s.created_at, s.updated_at
FROM subscribers s
WHERE s.uuid = :uuid::uuid
  AND EXISTS (SELECT 1 FROM campaign_recipients(:campaign_id::int, s.id - 1, s.id, 1));

-- name: archive-query
-- One page of the public archive, newest first: archived regular campaigns that have been sent
-- (running, paused or finished), with the total in every row.
SELECT c.id, c.uuid, c.name, c.subject, c.from_email, c.body, c.altbody, c.content_type, c.headers, c.tags,
       c.attribs, c.template_id, c.messenger, c.type, c.send_at, c.started_at, c.created_at, c.updated_at,
       c.status, c.sent, c.archive, c.archive_slug, c.archive_meta,
       t.body AS template_body, coalesce(a.body, t.body, d.body) AS archive_template_body,
       coalesce(c.started_at, c.send_at, c.created_at) AS published_at,
       count(*) OVER ()::int AS total
FROM campaigns c
LEFT JOIN templates t ON t.id = c.template_id
LEFT JOIN templates a ON a.id = c.archive_template_id
LEFT JOIN templates d ON d.is_default
WHERE c.archive AND c.type = 'regular' AND c.status IN ('running', 'paused', 'finished')
ORDER BY coalesce(c.started_at, c.send_at, c.created_at) DESC, c.id DESC
LIMIT :limit::int OFFSET :offset::int;

-- name: archive-get
-- One archived campaign by UUID or slug (same conditions as the archive list).
SELECT c.id, c.uuid, c.name, c.subject, c.from_email, c.body, c.altbody, c.content_type, c.headers, c.tags,
       c.attribs, c.template_id, c.messenger, c.type, c.send_at, c.started_at, c.created_at, c.updated_at,
       c.status, c.sent, c.archive, c.archive_slug, c.archive_meta,
       t.body AS template_body, coalesce(a.body, t.body, d.body) AS archive_template_body,
       coalesce(c.started_at, c.send_at, c.created_at) AS published_at
FROM campaigns c
LEFT JOIN templates t ON t.id = c.template_id
LEFT JOIN templates a ON a.id = c.archive_template_id
LEFT JOIN templates d ON d.is_default
WHERE c.archive AND c.type = 'regular' AND c.status IN ('running', 'paused', 'finished')
  AND (c.archive_slug = :key OR c.uuid::text = lower(:key))
ORDER BY coalesce(c.started_at, c.send_at, c.created_at) DESC, c.id DESC
LIMIT 1;

-- name: archive-count
SELECT count(*)::int AS total FROM campaigns c
WHERE c.archive AND c.type = 'regular' AND c.status IN ('running', 'paused', 'finished');
