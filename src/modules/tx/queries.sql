-- Transactional messages (spec 4.4, reference §9).

-- name: tx-template-get
SELECT id, type, subject, body, updated_at FROM templates WHERE id = :id;

-- name: tx-subscribers-by-id
SELECT id, uuid, email, name, attribs, status, created_at, updated_at
FROM subscribers WHERE id = ANY(:ids::int[]);

-- name: tx-subscribers-by-email
SELECT id, uuid, email, name, attribs, status, created_at, updated_at
FROM subscribers WHERE email = ANY(:emails::text[]);
