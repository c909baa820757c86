-- Public subscription and double opt-in confirmation (spec 4.1, reference §4.3, §17, issue 3 §3–4).

-- name: public-lists
-- Lists offered publicly: public and active.
SELECT uuid, name, optin FROM lists WHERE type = 'public' AND status = 'active' ORDER BY lower(name), id;

-- name: public-lists-by-uuid
-- The public, active lists among the given uuids; private, archived and unknown ones are left out.
SELECT id, uuid, name, type, optin FROM lists
WHERE uuid = ANY(:uuids::uuid[]) AND type = 'public' AND status = 'active'
ORDER BY id;

-- name: subscriber-insert-if-new
-- Creates the subscriber unless the address exists (then nothing is written).
INSERT INTO subscribers (email, name) VALUES (:email, :name)
ON CONFLICT (email) DO NOTHING
RETURNING id, status;

-- name: subscriber-by-email-for-update
SELECT id, status FROM subscribers WHERE email = :email FOR UPDATE;

-- name: subscriptions-public-add
-- Public subscription: new memberships are unconfirmed; unsubscribed ones become unconfirmed again;
-- confirmed and unconfirmed ones stay (reference §17). Returns the memberships written.
INSERT INTO subscriber_lists AS sl (subscriber_id, list_id, status)
SELECT :subscriber_id, l.id, 'unconfirmed' FROM lists l WHERE l.id = ANY(:list_ids::int[]) ORDER BY l.id
ON CONFLICT (subscriber_id, list_id) DO UPDATE SET status = 'unconfirmed', updated_at = now()
WHERE sl.status = 'unsubscribed'
RETURNING list_id, status;

-- name: optin-pending
-- The subscriber's unconfirmed memberships of double opt-in lists, restricted to the list uuids given
-- (all when none): what the opt-in page offers to confirm. Nothing for a blocklisted subscriber.
SELECT l.uuid, l.name, l.type
FROM subscribers s
JOIN subscriber_lists sl ON sl.subscriber_id = s.id
JOIN lists l ON l.id = sl.list_id
WHERE s.id = :subscriber_id AND s.status <> 'blocklisted' AND sl.status = 'unconfirmed' AND l.optin = 'double'
  AND (cardinality(:uuids::uuid[]) = 0 OR l.uuid = ANY(:uuids::uuid[]))
ORDER BY lower(l.name), l.id;

-- name: optin-confirm
-- Confirms those memberships; merges :meta (e.g. the confirming IP) into the subscription meta.
UPDATE subscriber_lists sl SET status = 'confirmed', meta = sl.meta || :meta::jsonb, updated_at = now()
FROM subscribers s, lists l
WHERE sl.subscriber_id = :subscriber_id AND s.id = sl.subscriber_id AND l.id = sl.list_id
  AND s.status <> 'blocklisted' AND sl.status = 'unconfirmed' AND l.optin = 'double'
  AND (cardinality(:uuids::uuid[]) = 0 OR l.uuid = ANY(:uuids::uuid[]))
RETURNING l.uuid, l.name, l.type;
