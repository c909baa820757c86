-- Mailroom's initial schema. Plain PostgreSQL (15+), identical on PGlite.
-- Enumerations are text columns with CHECK constraints so later migrations can extend them cheaply;
-- the API validates every value before it reaches the database.

-- API users (HTTP Basic credentials). Passwords are scrypt hashes (src/http/auth.ts).
CREATE TABLE users (
  id            serial PRIMARY KEY,
  username      text NOT NULL,
  password_hash text NOT NULL,
  type          text NOT NULL DEFAULT 'api' CHECK (type IN ('api', 'user')),
  status        text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT users_username_key UNIQUE (username)
);

-- Operator-editable settings, listmonk's flat dotted keys (reference §12).
CREATE TABLE settings (
  key        text PRIMARY KEY,
  value      jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE lists (
  id          serial PRIMARY KEY,
  uuid        uuid NOT NULL DEFAULT gen_random_uuid(),
  name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 2000),
  type        text NOT NULL DEFAULT 'private' CHECK (type IN ('public', 'private', 'temporary')),
  optin       text NOT NULL DEFAULT 'single' CHECK (optin IN ('single', 'double')),
  status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  tags        text[] NOT NULL DEFAULT '{}',
  description text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT lists_uuid_key UNIQUE (uuid)
);
CREATE INDEX lists_name_idx ON lists (lower(name));
CREATE INDEX lists_created_at_idx ON lists (created_at);

CREATE TABLE subscribers (
  id         serial PRIMARY KEY,
  uuid       uuid NOT NULL DEFAULT gen_random_uuid(),
  email      text NOT NULL CHECK (email <> '' AND email = lower(email)),
  name       text NOT NULL,
  attribs    jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attribs) = 'object'),
  status     text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled', 'blocklisted')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT subscribers_uuid_key UNIQUE (uuid),
  CONSTRAINT subscribers_email_key UNIQUE (email)
);
CREATE INDEX subscribers_status_idx ON subscribers (status);
CREATE INDEX subscribers_created_at_idx ON subscribers (created_at);
CREATE INDEX subscribers_updated_at_idx ON subscribers (updated_at);
CREATE INDEX subscribers_attribs_idx ON subscribers USING gin (attribs jsonb_path_ops);

-- A subscription: one subscriber's membership of one list.
CREATE TABLE subscriber_lists (
  subscriber_id integer NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
  list_id       integer NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
  status        text NOT NULL DEFAULT 'unconfirmed' CHECK (status IN ('unconfirmed', 'confirmed', 'unsubscribed')),
  meta          jsonb NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subscriber_id, list_id)
);
-- Walks a list's members in subscriber-id order (campaign batches, list filters) without the heap.
CREATE INDEX subscriber_lists_list_idx ON subscriber_lists (list_id, subscriber_id) INCLUDE (status);

-- Maintained subscription counts per list and status, so `subscriber_count` never needs a COUNT(*)
-- over millions of rows at read time. Kept exact by the statement-level triggers below.
CREATE TABLE list_subscriber_counts (
  list_id integer NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
  status  text NOT NULL,
  count   bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (list_id, status)
);

CREATE FUNCTION subscriber_lists_apply_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Net change per (list, status) of this statement; rows are locked in key order to avoid deadlocks
  -- between concurrent statements touching the same lists. Lists deleted in the same statement
  -- (cascade) are skipped by the join.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO list_subscriber_counts AS c (list_id, status, count)
    SELECT d.list_id, d.status, count(*) FROM new_rows d JOIN lists l ON l.id = d.list_id
    GROUP BY d.list_id, d.status ORDER BY d.list_id, d.status
    ON CONFLICT (list_id, status) DO UPDATE SET count = c.count + EXCLUDED.count;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO list_subscriber_counts AS c (list_id, status, count)
    SELECT d.list_id, d.status, -count(*) FROM old_rows d JOIN lists l ON l.id = d.list_id
    GROUP BY d.list_id, d.status ORDER BY d.list_id, d.status
    ON CONFLICT (list_id, status) DO UPDATE SET count = c.count + EXCLUDED.count;
  ELSE
    INSERT INTO list_subscriber_counts AS c (list_id, status, count)
    SELECT d.list_id, d.status, sum(d.n) FROM (
      SELECT list_id, status, 1 AS n FROM new_rows
      UNION ALL
      SELECT list_id, status, -1 AS n FROM old_rows
    ) d JOIN lists l ON l.id = d.list_id
    GROUP BY d.list_id, d.status HAVING sum(d.n) <> 0 ORDER BY d.list_id, d.status
    ON CONFLICT (list_id, status) DO UPDATE SET count = c.count + EXCLUDED.count;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER subscriber_lists_count_insert AFTER INSERT ON subscriber_lists
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION subscriber_lists_apply_counts();
CREATE TRIGGER subscriber_lists_count_delete AFTER DELETE ON subscriber_lists
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION subscriber_lists_apply_counts();
CREATE TRIGGER subscriber_lists_count_update AFTER UPDATE ON subscriber_lists
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION subscriber_lists_apply_counts();

CREATE TABLE templates (
  id          serial PRIMARY KEY,
  name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 2000),
  type        text NOT NULL CHECK (type IN ('campaign', 'campaign_visual', 'tx')),
  subject     text NOT NULL DEFAULT '',
  body        text NOT NULL,
  body_source text,
  is_default  boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
-- Exactly one default template (spec 2, Template).
CREATE UNIQUE INDEX templates_is_default_key ON templates (is_default) WHERE is_default;

CREATE TABLE campaigns (
  id                  serial PRIMARY KEY,
  uuid                uuid NOT NULL DEFAULT gen_random_uuid(),
  name                text NOT NULL,
  subject             text NOT NULL,
  from_email          text NOT NULL,
  body                text NOT NULL DEFAULT '',
  body_source         text,
  altbody             text,
  content_type        text NOT NULL DEFAULT 'richtext' CHECK (content_type IN ('richtext', 'html', 'markdown', 'plain', 'visual')),
  send_at             timestamptz,
  headers             jsonb NOT NULL DEFAULT '[]',
  attribs             jsonb NOT NULL DEFAULT '{}',
  status              text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'scheduled', 'running', 'paused', 'cancelled', 'finished')),
  -- Why the engine last changed the status by itself (e.g. paused after too many errors); '' otherwise.
  status_reason       text NOT NULL DEFAULT '',
  tags                text[] NOT NULL DEFAULT '{}',
  type                text NOT NULL DEFAULT 'regular' CHECK (type IN ('regular', 'optin')),
  messenger           text NOT NULL DEFAULT 'email',
  template_id         integer REFERENCES templates (id) ON DELETE SET NULL,
  -- Delivery progress (src/workers/README.md): to_send and max_subscriber_id are fixed when a run is
  -- prepared; last_subscriber_id is the highest subscriber id already carved into a batch.
  to_send             integer NOT NULL DEFAULT 0,
  sent                integer NOT NULL DEFAULT 0,
  max_subscriber_id   integer NOT NULL DEFAULT 0,
  last_subscriber_id  integer NOT NULL DEFAULT 0,
  -- Incremented each time the campaign enters `running`; the runner prepares each run once.
  run_no              integer NOT NULL DEFAULT 0,
  prepared_run_no     integer NOT NULL DEFAULT 0,
  archive             boolean NOT NULL DEFAULT false,
  archive_slug        text,
  archive_template_id integer REFERENCES templates (id) ON DELETE SET NULL,
  archive_meta        jsonb NOT NULL DEFAULT '{}',
  started_at          timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT campaigns_uuid_key UNIQUE (uuid),
  CONSTRAINT campaigns_archive_slug_key UNIQUE (archive_slug)
);
CREATE INDEX campaigns_status_idx ON campaigns (status);
CREATE INDEX campaigns_created_at_idx ON campaigns (created_at);

-- The lists a campaign targets. list_name survives the list's deletion (reference §7.1).
CREATE TABLE campaign_lists (
  campaign_id integer NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  list_id     integer REFERENCES lists (id) ON DELETE SET NULL,
  list_name   text NOT NULL,
  CONSTRAINT campaign_lists_key UNIQUE (campaign_id, list_id)
);
CREATE INDEX campaign_lists_list_idx ON campaign_lists (list_id);

-- Units of delivery work: the eligible subscribers with first_id < id <= last_id. An instance owns a
-- batch while its lease is valid; checkpoint_id advances only past confirmed sends.
CREATE TABLE campaign_batches (
  id            bigserial PRIMARY KEY,
  campaign_id   integer NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  first_id      integer NOT NULL,
  last_id       integer NOT NULL,
  checkpoint_id integer NOT NULL,
  -- Subscribers above checkpoint_id already handled (sent or bounced); at most the in-flight window.
  done_ids      integer[] NOT NULL DEFAULT '{}',
  sent          integer NOT NULL DEFAULT 0,
  status        text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done')),
  owner         text,
  lease_until   timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CHECK (first_id < last_id AND checkpoint_id BETWEEN first_id AND last_id)
);
CREATE INDEX campaign_batches_open_idx ON campaign_batches (campaign_id, id) WHERE status = 'open';

-- The recipients of a campaign with ids in (after, upto], in id order, at most `max_rows` (NULL: all).
-- The one definition of eligibility (issue "Foundation" §10, reference §15.2): the subscriber is
-- enabled and on one of the campaign's lists with a membership that is not unsubscribed, and confirmed
-- on double opt-in lists; opt-in campaigns go only to unconfirmed members of double opt-in lists.
CREATE FUNCTION campaign_recipients(p_campaign_id integer, p_after integer, p_upto integer, p_max_rows integer)
RETURNS TABLE (subscriber_id integer) LANGUAGE sql STABLE AS $$
  SELECT DISTINCT sl.subscriber_id
  FROM campaigns c
  JOIN campaign_lists cl ON cl.campaign_id = c.id
  JOIN lists l ON l.id = cl.list_id
  JOIN subscriber_lists sl ON sl.list_id = cl.list_id
  JOIN subscribers s ON s.id = sl.subscriber_id
  WHERE c.id = p_campaign_id
    AND sl.subscriber_id > p_after AND sl.subscriber_id <= p_upto
    AND s.status = 'enabled'
    AND CASE WHEN c.type = 'optin' THEN l.optin = 'double' AND sl.status = 'unconfirmed'
             ELSE sl.status <> 'unsubscribed' AND (l.optin = 'single' OR sl.status = 'confirmed') END
  ORDER BY sl.subscriber_id
  LIMIT p_max_rows
$$;

CREATE TABLE campaign_views (
  id            bigserial PRIMARY KEY,
  campaign_id   integer NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  subscriber_id integer REFERENCES subscribers (id) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX campaign_views_campaign_idx ON campaign_views (campaign_id, created_at);
CREATE INDEX campaign_views_subscriber_idx ON campaign_views (subscriber_id);

CREATE TABLE links (
  id         serial PRIMARY KEY,
  uuid       uuid NOT NULL DEFAULT gen_random_uuid(),
  url        text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT links_uuid_key UNIQUE (uuid),
  CONSTRAINT links_url_key UNIQUE (url)
);

CREATE TABLE link_clicks (
  id            bigserial PRIMARY KEY,
  campaign_id   integer REFERENCES campaigns (id) ON DELETE CASCADE,
  link_id       integer NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  subscriber_id integer REFERENCES subscribers (id) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX link_clicks_campaign_idx ON link_clicks (campaign_id, created_at);
CREATE INDEX link_clicks_link_idx ON link_clicks (link_id);
CREATE INDEX link_clicks_subscriber_idx ON link_clicks (subscriber_id);

CREATE TABLE bounces (
  id            serial PRIMARY KEY,
  subscriber_id integer NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
  campaign_id   integer REFERENCES campaigns (id) ON DELETE SET NULL,
  type          text NOT NULL DEFAULT 'hard' CHECK (type IN ('soft', 'hard', 'complaint')),
  source        text NOT NULL DEFAULT '',
  meta          jsonb NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bounces_subscriber_idx ON bounces (subscriber_id);
CREATE INDEX bounces_campaign_idx ON bounces (campaign_id);
CREATE INDEX bounces_created_at_idx ON bounces (created_at);
