-- Delivery engine for production (issue 5): send errors per run, the shared rate limiter, and the
-- links each campaign registered (click redirects go only to those).

-- Messenger errors in the campaign's current run (reset when a run is prepared); past
-- app.max_send_errors the engine pauses the campaign (listmonk §15.1).
ALTER TABLE campaigns ADD COLUMN send_errors integer NOT NULL DEFAULT 0;

-- The token bucket behind app.message_rate, shared by every instance on this database: one row,
-- locked by each grant (src/workers/README.md, "Rate limits").
CREATE TABLE send_limiter (
  id          integer PRIMARY KEY CHECK (id = 1),
  tokens      double precision NOT NULL DEFAULT 0,
  refilled_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO send_limiter (id) VALUES (1);

-- Grants made under app.message_sliding_window: at most `rate` messages granted in any interval of
-- `duration`. Rows older than the window are deleted by the grant statement.
CREATE TABLE send_window_grants (
  id         bigserial PRIMARY KEY,
  granted_at timestamptz NOT NULL,
  n          integer NOT NULL CHECK (n > 0)
);
CREATE INDEX send_window_grants_at_idx ON send_window_grants (granted_at);

-- The tracked links a campaign registered before sending: /link/:link/:campaign/:subscriber redirects
-- only to these (no open redirect).
CREATE TABLE campaign_links (
  campaign_id integer NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  link_id     integer NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  PRIMARY KEY (campaign_id, link_id)
);
CREATE INDEX campaign_links_link_idx ON campaign_links (link_id);
