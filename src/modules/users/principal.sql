-- The signed-in principal (src/http/access.ts Principal): a user with its user role's permissions and
-- its list role's per-list permissions, in one row (issue 16 "Identity"; listmonk's get-user with
-- setupUserFields). For the authentication hook; nothing here is answered to clients as is.

-- name: principal-by-user-id
-- The user :user_id with its roles, whatever its status (the caller decides: a disabled user signs in
-- to nothing). `lists` is a JSON array of {list_id, permissions}, [] without a list role.
SELECT u.id AS user_id, u.username, u.name, u.email, u.type, u.status, u.legacy, u.password_login,
       u.twofa_type, u.user_role_id, ur.name AS user_role_name, ur.permissions, u.list_role_id,
       coalesce((SELECT jsonb_agg(jsonb_build_object('list_id', rl.list_id, 'permissions', to_jsonb(rl.permissions)) ORDER BY rl.list_id)
                 FROM role_lists rl WHERE rl.role_id = u.list_role_id), '[]'::jsonb) AS lists
FROM users u
JOIN roles ur ON ur.id = u.user_role_id
WHERE u.id = :user_id::int;

-- name: principal-by-username
-- The same row found by user name, with the stored password hash (scrypt, or `sha256$<hex>` for API
-- tokens) for the credential check.
SELECT u.id AS user_id, u.username, u.name, u.email, u.type, u.status, u.legacy, u.password_login,
       u.twofa_type, u.user_role_id, ur.name AS user_role_name, ur.permissions, u.list_role_id,
       coalesce((SELECT jsonb_agg(jsonb_build_object('list_id', rl.list_id, 'permissions', to_jsonb(rl.permissions)) ORDER BY rl.list_id)
                 FROM role_lists rl WHERE rl.role_id = u.list_role_id), '[]'::jsonb) AS lists,
       u.password_hash
FROM users u
JOIN roles ur ON ur.id = u.user_role_id
WHERE u.username = :username;
