-- Issue 16 (dashboard): figures kept exact by statement-level triggers, so GET /api/dashboard/counts and
-- GET /api/dashboard/charts never count millions of rows at read time (src/modules/dashboard/README.md).
-- Both tables follow subscriber_totals (0003): each statement appends its delta as a new row, so
-- concurrent writers never wait on one hot row, and every 500th row folds the committed ones.

-- Writers of these tables (older instances during a rolling restart included) wait until this migration
-- commits, so no row is written between the initial counts below and the triggers that keep them
-- (a few seconds per 10 million views on a 2-core machine; the triggers then serve old and new code alike).
LOCK TABLE subscriber_lists, campaign_views, link_clicks IN SHARE ROW EXCLUSIVE MODE;

-- 1. Subscribers that have at least one subscription (any status). listmonk's "orphans" (subscribers
--    in no list) = the subscriber total (subscriber_totals) minus the sum of subscribed_totals.
--    subscribed_subscribers is the set itself: writing to it with ON CONFLICT DO NOTHING and
--    DELETE … RETURNING says exactly which subscribers entered or left it, whatever else the statement
--    did (a subscriber's lists are replaced by one statement that deletes and inserts), and its primary
--    key makes two transactions adding the first subscription of one subscriber count it once.
CREATE TABLE subscribed_subscribers (
  subscriber_id integer PRIMARY KEY
);
INSERT INTO subscribed_subscribers (subscriber_id) SELECT DISTINCT subscriber_id FROM subscriber_lists;
CREATE TABLE subscribed_totals (
  id    bigserial PRIMARY KEY,
  delta bigint NOT NULL
);
INSERT INTO subscribed_totals (delta) SELECT count(*) FROM subscribed_subscribers;

-- Removing a subscription removes the subscriber from the set when it has no other one left. Another
-- transaction may be adding one at that moment, unseen: so the statement first locks (FOR UPDATE, in id
-- order) the subscribers it touched. That waits for the FOR KEY SHARE lock the foreign-key check of a
-- concurrent insert holds on the subscriber until it commits; the check that follows takes a fresh
-- snapshot (plpgsql statements in READ COMMITTED each take one) and so sees that subscription.
-- Subscribers deleted by this transaction (the cascade) are not visible, need no lock, and leave the
-- set. Named so that PostgreSQL (which fires one event's triggers in name order) runs it before
-- subscriber_lists_count_*: writers lock subscriber rows first, then the list counts, the order a
-- subscriber update (its row, then its lists) already takes. subscriber_id of a subscription never
-- changes (nothing updates it), so UPDATE needs no trigger.
CREATE FUNCTION subscriber_lists_apply_subscribed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched integer[];
  change bigint;
  added bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH entered AS (
      INSERT INTO subscribed_subscribers (subscriber_id)
      SELECT DISTINCT subscriber_id FROM new_rows ORDER BY subscriber_id
      ON CONFLICT (subscriber_id) DO NOTHING
      RETURNING 1
    )
    SELECT count(*) INTO change FROM entered;
  ELSE
    SELECT array_agg(DISTINCT subscriber_id ORDER BY subscriber_id) INTO touched FROM old_rows;
    PERFORM 1 FROM subscribers s JOIN unnest(touched) t(id) ON s.id = t.id ORDER BY s.id FOR UPDATE OF s;
    WITH left_all AS (
      DELETE FROM subscribed_subscribers d
      WHERE d.subscriber_id = ANY (touched)
        AND NOT EXISTS (SELECT 1 FROM subscriber_lists sl WHERE sl.subscriber_id = d.subscriber_id)
      RETURNING 1
    )
    SELECT -count(*) INTO change FROM left_all;
  END IF;
  IF change = 0 THEN
    RETURN NULL;
  END IF;
  INSERT INTO subscribed_totals (delta) VALUES (change) RETURNING id INTO added;
  IF added % 500 = 0 THEN
    WITH folded AS (
      DELETE FROM subscribed_totals WHERE id IN (
        SELECT id FROM subscribed_totals WHERE id < added ORDER BY id FOR UPDATE SKIP LOCKED)
      RETURNING delta
    )
    INSERT INTO subscribed_totals (delta) SELECT sum(delta) FROM folded HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER subscriber_lists_attach_insert AFTER INSERT ON subscriber_lists
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION subscriber_lists_apply_subscribed();
CREATE TRIGGER subscriber_lists_attach_delete AFTER DELETE ON subscriber_lists
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION subscriber_lists_apply_subscribed();

-- 2. Campaign views and link clicks per UTC day, for the dashboard's 30-day charts. Rows are deltas
--    per (kind, day); a day's count is their sum. Deleting a campaign (its views and clicks cascade)
--    subtracts them again, as listmonk's chart, which counts the rows that exist, would show.
CREATE TABLE engagement_days (
  id    bigserial PRIMARY KEY,
  kind  text NOT NULL CHECK (kind IN ('view', 'click')),
  day   date NOT NULL,
  delta bigint NOT NULL
);
CREATE INDEX engagement_days_day_idx ON engagement_days (day, kind);
INSERT INTO engagement_days (kind, day, delta)
SELECT 'view', (created_at AT TIME ZONE 'UTC')::date, count(*) FROM campaign_views GROUP BY 2;
INSERT INTO engagement_days (kind, day, delta)
SELECT 'click', (created_at AT TIME ZONE 'UTC')::date, count(*) FROM link_clicks GROUP BY 2;

-- TG_ARGV[0] is the kind. Folding (when this statement's rows cross a multiple of 500 ids) merges the
-- committed rows into one per (kind, day), skipping rows other transactions hold, as 0003 does.
CREATE FUNCTION engagement_apply_days() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  first_id bigint;
  last_id bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH ins AS (
      INSERT INTO engagement_days (kind, day, delta)
      SELECT TG_ARGV[0], (created_at AT TIME ZONE 'UTC')::date, count(*) FROM new_rows GROUP BY 2
      RETURNING id
    )
    SELECT min(id), max(id) INTO first_id, last_id FROM ins;
  ELSE
    WITH ins AS (
      INSERT INTO engagement_days (kind, day, delta)
      SELECT TG_ARGV[0], (created_at AT TIME ZONE 'UTC')::date, -count(*) FROM old_rows GROUP BY 2
      RETURNING id
    )
    SELECT min(id), max(id) INTO first_id, last_id FROM ins;
  END IF;
  IF last_id IS NOT NULL AND last_id / 500 > (first_id - 1) / 500 THEN
    WITH folded AS (
      DELETE FROM engagement_days WHERE id IN (
        SELECT id FROM engagement_days WHERE id <= last_id ORDER BY id FOR UPDATE SKIP LOCKED)
      RETURNING kind, day, delta
    )
    INSERT INTO engagement_days (kind, day, delta)
    SELECT kind, day, sum(delta) FROM folded GROUP BY kind, day HAVING sum(delta) <> 0;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER campaign_views_days_insert AFTER INSERT ON campaign_views
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_apply_days('view');
CREATE TRIGGER campaign_views_days_delete AFTER DELETE ON campaign_views
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_apply_days('view');
CREATE TRIGGER link_clicks_days_insert AFTER INSERT ON link_clicks
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_apply_days('click');
CREATE TRIGGER link_clicks_days_delete AFTER DELETE ON link_clicks
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_apply_days('click');
