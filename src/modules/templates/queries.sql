-- Templates (spec 4.3, reference §8).

-- name: template-list
SELECT id, created_at, updated_at, name, type, subject, body, body_source, is_default
FROM templates ORDER BY id;

-- name: template-get
SELECT id, created_at, updated_at, name, type, subject, body, body_source, is_default
FROM templates WHERE id = :id;

-- name: template-get-default
SELECT id, created_at, updated_at, name, type, subject, body, body_source, is_default
FROM templates WHERE is_default;

-- name: template-insert
INSERT INTO templates (name, type, subject, body, is_default)
VALUES (:name, :type, :subject, :body, :is_default)
RETURNING id;

-- name: template-count
SELECT count(*)::int AS n FROM templates;
