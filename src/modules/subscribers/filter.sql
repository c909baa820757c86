-- Subscriber filters (issue 3 §1–2, reference §4.2, §4.8, §14): every statement here carries one
-- `%query%` marker where the segmentation guard embeds the compiled `query` expression (TRUE when
-- there is none). They run only through the guarded, read-only path (src/segmentation).
--
-- Two shapes: without a list filter the expression is applied to `subscribers` directly; with one,
-- inside an EXISTS over the subscriber's memberships of any of :list_ids (each subscriber once), where
-- the expression may also use `subscriber_lists` columns. :search is lower-cased and LIKE-escaped.
-- :ids (CSV export of chosen subscribers) is empty for "any"; :after_id pages by id (0 for "from
-- the start").

-- name: filter-page
SELECT subscribers.id, subscribers.created_at, subscribers.updated_at, subscribers.uuid, subscribers.email,
       subscribers.name, subscribers.attribs, subscribers.status
FROM subscribers
WHERE %query%
  AND (:search::text = '' OR subscribers.email LIKE '%' || :search::text || '%' ESCAPE '\'
       OR lower(subscribers.name) LIKE '%' || :search::text || '%' ESCAPE '\')
  AND (cardinality(:ids::int[]) = 0 OR subscribers.id = ANY(:ids::int[]))
  AND subscribers.id > :after_id::int
ORDER BY %order%
LIMIT :limit::bigint OFFSET :offset::bigint;

-- name: filter-page-in-lists
SELECT subscribers.id, subscribers.created_at, subscribers.updated_at, subscribers.uuid, subscribers.email,
       subscribers.name, subscribers.attribs, subscribers.status
FROM subscribers
WHERE EXISTS (
    SELECT 1 FROM subscriber_lists
    WHERE subscriber_lists.subscriber_id = subscribers.id AND subscriber_lists.list_id = ANY(:list_ids::int[])
      AND (:subscription_status::text = '' OR subscriber_lists.status = :subscription_status::text)
      AND %query%)
  AND (:search::text = '' OR subscribers.email LIKE '%' || :search::text || '%' ESCAPE '\'
       OR lower(subscribers.name) LIKE '%' || :search::text || '%' ESCAPE '\')
  AND (cardinality(:ids::int[]) = 0 OR subscribers.id = ANY(:ids::int[]))
  AND subscribers.id > :after_id::int
ORDER BY %order%
LIMIT :limit::bigint OFFSET :offset::bigint;

-- name: filter-count
SELECT count(*)::int AS total
FROM subscribers
WHERE %query%
  AND (:search::text = '' OR subscribers.email LIKE '%' || :search::text || '%' ESCAPE '\'
       OR lower(subscribers.name) LIKE '%' || :search::text || '%' ESCAPE '\');

-- name: filter-count-in-lists
SELECT count(*)::int AS total
FROM subscribers
WHERE EXISTS (
    SELECT 1 FROM subscriber_lists
    WHERE subscriber_lists.subscriber_id = subscribers.id AND subscriber_lists.list_id = ANY(:list_ids::int[])
      AND (:subscription_status::text = '' OR subscriber_lists.status = :subscription_status::text)
      AND %query%)
  AND (:search::text = '' OR subscribers.email LIKE '%' || :search::text || '%' ESCAPE '\'
       OR lower(subscribers.name) LIKE '%' || :search::text || '%' ESCAPE '\');

-- name: filter-ids
SELECT subscribers.id
FROM subscribers
WHERE %query%
  AND (:search::text = '' OR subscribers.email LIKE '%' || :search::text || '%' ESCAPE '\'
       OR lower(subscribers.name) LIKE '%' || :search::text || '%' ESCAPE '\')
ORDER BY subscribers.id;

-- name: filter-ids-in-lists
SELECT subscribers.id
FROM subscribers
WHERE EXISTS (
    SELECT 1 FROM subscriber_lists
    WHERE subscriber_lists.subscriber_id = subscribers.id AND subscriber_lists.list_id = ANY(:list_ids::int[])
      AND (:subscription_status::text = '' OR subscriber_lists.status = :subscription_status::text)
      AND %query%)
  AND (:search::text = '' OR subscribers.email LIKE '%' || :search::text || '%' ESCAPE '\'
       OR lower(subscribers.name) LIKE '%' || :search::text || '%' ESCAPE '\')
ORDER BY subscribers.id;

-- name: filter-ids-range
-- One step of stepped evaluation on the embedded store (src/segmentation/stepped.ts): the matches
-- with ids in (:lo, :hi], every condition of filter-page applied.
SELECT subscribers.id
FROM subscribers
WHERE subscribers.id > :lo::int AND subscribers.id <= :hi::int
  AND %query%
  AND (:search::text = '' OR subscribers.email LIKE '%' || :search::text || '%' ESCAPE '\'
       OR lower(subscribers.name) LIKE '%' || :search::text || '%' ESCAPE '\')
  AND (cardinality(:ids::int[]) = 0 OR subscribers.id = ANY(:ids::int[]))
ORDER BY subscribers.id;

-- name: filter-ids-range-in-lists
SELECT subscribers.id
FROM subscribers
WHERE subscribers.id > :lo::int AND subscribers.id <= :hi::int
  AND EXISTS (
    SELECT 1 FROM subscriber_lists
    WHERE subscriber_lists.subscriber_id = subscribers.id AND subscriber_lists.list_id = ANY(:list_ids::int[])
      AND (:subscription_status::text = '' OR subscriber_lists.status = :subscription_status::text)
      AND %query%)
  AND (:search::text = '' OR subscribers.email LIKE '%' || :search::text || '%' ESCAPE '\'
       OR lower(subscribers.name) LIKE '%' || :search::text || '%' ESCAPE '\')
  AND (cardinality(:ids::int[]) = 0 OR subscribers.id = ANY(:ids::int[]))
ORDER BY subscribers.id;

-- name: max-id
SELECT coalesce(max(id), 0)::int AS max FROM subscribers;

-- name: total-all
-- The maintained number of subscribers (migration 0003): the total of an unfiltered page.
SELECT coalesce(sum(delta), 0)::int AS total FROM subscriber_totals;

-- name: total-one-list
-- The maintained number of members of one list, optionally in one subscription status (migration
-- 0001): the total of a page filtered by that list alone.
SELECT coalesce(sum(count), 0)::int AS total FROM list_subscriber_counts
WHERE list_id = :list_id AND (:subscription_status::text = '' OR status = :subscription_status::text);
