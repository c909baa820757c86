-- Media files (spec 4.5, reference §11).

-- name: media-list
-- Media of one provider, newest first, optionally filtered by a case-insensitive substring of the name
-- (:search is lower-cased and LIKE-escaped by the caller).
SELECT id, uuid, provider, filename, content_type, has_thumb, size, meta, created_at
FROM media
WHERE provider = :provider
  AND (:search::text = '' OR lower(filename) LIKE '%' || :search::text || '%' ESCAPE '\')
ORDER BY created_at DESC, id DESC
LIMIT :limit::bigint OFFSET :offset::bigint;

-- name: media-get
SELECT id, uuid, provider, filename, content_type, has_thumb, size, meta, created_at
FROM media WHERE id = :id;

-- name: media-get-by-name
SELECT id, uuid, provider, filename, content_type, has_thumb, size, meta, created_at
FROM media WHERE provider = :provider AND filename = :filename;

-- name: media-insert
-- Reserves a file name; a taken name violates media_provider_filename_key and nothing is written.
INSERT INTO media (provider, filename, content_type, has_thumb, size, meta)
VALUES (:provider, :filename, :content_type, :has_thumb, :size, :meta::jsonb)
RETURNING id, uuid, provider, filename, content_type, has_thumb, size, meta, created_at;

-- name: media-delete
DELETE FROM media WHERE id = :id
RETURNING id, uuid, provider, filename, content_type, has_thumb, size, meta, created_at;
