-- name: principal-by-user-id
-- An enabled user with its user role's permissions and its list role's per-list permissions, for the
-- principal of a request (src/http/access.ts).
SELECT u.id, u.username, u.name, u.email, u.type, u.password_hash, u.legacy, u.password_login, u.twofa_type,
       u.user_role_id, r.name AS user_role_name, r.permissions, u.list_role_id,
       COALESCE((SELECT json_agg(json_build_object('id', rl.list_id, 'permissions', rl.permissions))
                 FROM role_lists rl WHERE rl.role_id = u.list_role_id), '[]'::json) AS lists
FROM users u JOIN roles r ON r.id = u.user_role_id
WHERE u.id = :id AND u.status = 'enabled';

-- name: principal-by-username
-- The same, by user name (API credentials and password sign-in).
SELECT u.id, u.username, u.name, u.email, u.type, u.password_hash, u.legacy, u.password_login, u.twofa_type,
       u.user_role_id, r.name AS user_role_name, r.permissions, u.list_role_id,
       COALESCE((SELECT json_agg(json_build_object('id', rl.list_id, 'permissions', rl.permissions))
                 FROM role_lists rl WHERE rl.role_id = u.list_role_id), '[]'::json) AS lists
FROM users u JOIN roles r ON r.id = u.user_role_id
WHERE u.username = :username AND u.status = 'enabled';
