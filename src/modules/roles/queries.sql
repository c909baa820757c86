-- User roles and list roles (issue 16 "Identity" item 2; listmonk reference §3.4, queries/roles.sql).
-- A list role's per-list permissions live in role_lists (listmonk keeps them as child rows of roles).

-- name: role-user-view
-- User roles in the API's shape, oldest first; :id null for all.
SELECT id, created_at, updated_at, type, name, permissions
FROM roles
WHERE type = 'user' AND (:id::int IS NULL OR id = :id::int)
ORDER BY created_at, id;

-- name: role-list-view
-- List roles with their lists `[{id, name, permissions}]` (by list id), oldest first; :id null for all.
SELECT r.id, r.created_at, r.updated_at, r.name, coalesce(lp.lists, '[]'::jsonb) AS lists
FROM roles r
LEFT JOIN LATERAL (
  SELECT jsonb_agg(jsonb_build_object('id', rl.list_id, 'name', l.name, 'permissions', to_jsonb(rl.permissions)) ORDER BY rl.list_id) AS lists
  FROM role_lists rl JOIN lists l ON l.id = rl.list_id
  WHERE rl.role_id = r.id
) lp ON true
WHERE r.type = 'list' AND (:id::int IS NULL OR r.id = :id::int)
ORDER BY r.created_at, r.id;

-- name: role-type
SELECT type FROM roles WHERE id = :id::int;

-- name: role-insert
INSERT INTO roles (type, name, permissions) VALUES (:type, :name, :permissions::text[]) RETURNING id;

-- name: role-update
-- Renames a role and replaces its permissions (a list role's are always empty); nothing for another type.
UPDATE roles SET name = :name, permissions = :permissions::text[], updated_at = now()
WHERE id = :id::int AND type = :type
RETURNING id;

-- name: role-lists-clear
DELETE FROM role_lists WHERE role_id = :role_id::int;

-- name: role-lists-insert
-- :lists is a JSON array of {id, permissions}, list ids checked to exist and unique by the caller.
INSERT INTO role_lists (role_id, list_id, permissions)
SELECT :role_id::int, x.id, ARRAY(SELECT jsonb_array_elements_text(x.permissions))
FROM jsonb_to_recordset(:lists::jsonb) AS x(id int, permissions jsonb);

-- name: role-existing-lists
SELECT id FROM lists WHERE id = ANY(:ids::int[]);

-- name: role-users-count
-- How many users have role :id as their user role.
SELECT count(*)::int AS n FROM users WHERE user_role_id = :id::int;

-- name: role-delete
-- Users whose list role this was keep their account (users.list_role_id is ON DELETE SET NULL).
DELETE FROM roles WHERE id = :id::int RETURNING id;
