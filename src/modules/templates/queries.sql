-- Templates (spec 4.3, reference §8).

-- name: template-list
SELECT id, created_at, updated_at, name, type, subject,
       CASE WHEN :no_body::bool THEN '' ELSE body END AS body, body_source, is_default
FROM templates ORDER BY id;

-- name: template-get
SELECT id, created_at, updated_at, name, type, subject, body, body_source, is_default
FROM templates WHERE id = :id;

-- name: template-get-default
SELECT id, created_at, updated_at, name, type, subject, body, body_source, is_default
FROM templates WHERE is_default;

-- name: template-insert
INSERT INTO templates (name, type, subject, body, body_source, is_default)
VALUES (:name, :type, :subject, :body, :body_source, :is_default)
RETURNING id;

-- name: template-update
-- Replaces the editable fields (the service merged omitted ones from the stored template).
UPDATE templates SET name = :name, subject = :subject, body = :body, body_source = :body_source, updated_at = now()
WHERE id = :id
RETURNING id;

-- name: template-count
SELECT count(*)::int AS n FROM templates;

-- name: template-lock-default
-- Serialises changes of the default template (make default, delete) between requests and instances:
-- taken first in their transaction, so the statements after it see the latest default.
SELECT pg_advisory_xact_lock(7305861990114);

-- name: template-clear-default
UPDATE templates SET is_default = false, updated_at = now() WHERE is_default AND id <> :id;

-- name: template-set-default
-- Two statements with the clear above: the unique index on is_default is checked row by row, so
-- swapping the flag in one UPDATE could fail half-way.
UPDATE templates SET is_default = true, updated_at = now() WHERE id = :id AND type = 'campaign' AND NOT is_default;

-- name: template-repoint-campaigns
-- Campaigns (and archive settings) using a template about to be deleted move to the default template.
UPDATE campaigns SET
  template_id = CASE WHEN template_id = :id THEN d.id ELSE template_id END,
  archive_template_id = CASE WHEN archive_template_id = :id THEN d.id ELSE archive_template_id END,
  updated_at = now()
FROM (SELECT id FROM templates WHERE is_default) d
WHERE campaigns.template_id = :id OR campaigns.archive_template_id = :id
RETURNING campaigns.id;

-- name: template-delete
-- Deletes a template unless it is the default (checked again here, under the default lock).
DELETE FROM templates WHERE id = :id AND NOT is_default
RETURNING id;
