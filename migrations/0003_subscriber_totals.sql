-- Issue 3 (subscribers and lists complete): the maintained subscriber total and the indexes the
-- subscriber queries use (docs/subscribers.md lists what is indexed and why).

-- The number of subscribers, kept exact by statement-level triggers, so the unfiltered
-- GET /api/subscribers answers `total` without a COUNT(*) over millions of rows. Each statement that
-- inserts or deletes subscribers appends its delta as a new row, so concurrent writers never wait on
-- each other (and cannot deadlock) here; the total is the sum of the rows, read in the same snapshot as
-- the page, and every 500th delta folds the committed ones into one row so the sum stays cheap.
CREATE TABLE subscriber_totals (
  id    bigserial PRIMARY KEY,
  delta bigint NOT NULL
);
INSERT INTO subscriber_totals (delta) SELECT count(*) FROM subscribers;

CREATE FUNCTION subscribers_apply_total() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  change bigint;
  added bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT count(*) INTO change FROM new_rows;
  ELSE
    SELECT -count(*) INTO change FROM old_rows;
  END IF;
  IF change = 0 THEN
    RETURN NULL;
  END IF;
  INSERT INTO subscriber_totals (delta) VALUES (change) RETURNING id INTO added;
  -- Folding skips rows other transactions hold, so it never waits; it commits or rolls back with
  -- this statement's transaction, so the sum is exact either way.
  IF added % 500 = 0 THEN
    WITH folded AS (
      DELETE FROM subscriber_totals WHERE id IN (
        SELECT id FROM subscriber_totals WHERE id < added ORDER BY id FOR UPDATE SKIP LOCKED)
      RETURNING delta
    )
    INSERT INTO subscriber_totals (delta) SELECT sum(delta) FROM folded HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER subscribers_total_insert AFTER INSERT ON subscribers
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION subscribers_apply_total();
CREATE TRIGGER subscribers_total_delete AFTER DELETE ON subscribers
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION subscribers_apply_total();

-- Sorting by name (order_by=name) walks this index instead of sorting every subscriber.
CREATE INDEX subscribers_name_idx ON subscribers (name);
