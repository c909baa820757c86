-- Sign-in (issue 16 "Sign-in" item 4): TOTP codes are single use, and an OpenID Connect sign-in in
-- progress is kept in the database (not in one process's memory), so any instance serves its callback.

-- The last TOTP time step (Unix time / 30 s) accepted for the user: a code of that step or an earlier
-- one is refused, so a code seen over a shoulder cannot be used again (RFC 6238 §5.2).
ALTER TABLE users ADD COLUMN twofa_last_step bigint;

-- An OIDC authorisation request waiting for the provider's callback: id is the SHA-256 of the `state`
-- sent to the provider (the browser holds the state itself in a short-lived cookie); nonce and the PKCE
-- code verifier are checked when the code is exchanged. Single use; rows live ten minutes.
CREATE TABLE oidc_logins (
  id            text PRIMARY KEY,
  nonce         text NOT NULL,
  code_verifier text NOT NULL,
  next          text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL
);
CREATE INDEX oidc_logins_expires_idx ON oidc_logins (expires_at);
