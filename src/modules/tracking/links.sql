-- Tracked links (listmonk reference §16.3).

-- name: links-register
-- Stores each URL once in `links` and attaches it to the campaign; returns every given URL that is now
-- registered with its UUID. (A URL inserted by another instance after this statement's snapshot is
-- missing from the answer; the caller asks again.)
WITH input AS (
  SELECT DISTINCT u AS url FROM unnest(:urls::text[]) u
), inserted AS (
  INSERT INTO links (url) SELECT url FROM input ON CONFLICT (url) DO NOTHING
  RETURNING id, uuid, url
), known AS (
  SELECT id, uuid, url FROM inserted
  UNION ALL
  SELECT l.id, l.uuid, l.url FROM links l JOIN input i ON i.url = l.url
), attached AS (
  INSERT INTO campaign_links (campaign_id, link_id)
  SELECT DISTINCT :campaign_id::int, id FROM known
  ON CONFLICT DO NOTHING
)
SELECT DISTINCT uuid::text AS uuid, url FROM known;
