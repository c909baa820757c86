-- Issue 3 (subscribers and lists complete): the maintained subscriber total and the indexes the
-- subscriber queries use (docs/subscribers.md lists what is indexed and why).

-- The number of subscribers, kept exact by statement-level triggers, so the unfiltered
-- GET /api/subscribers answers `total` without a COUNT(*) over millions of rows. The count is spread
-- over 16 slots (chosen by backend pid) so concurrent inserts do not all wait on one row; the total
-- is the sum of the slots, read in the same snapshot as the page.
CREATE TABLE subscriber_totals (
  slot  smallint PRIMARY KEY CHECK (slot BETWEEN 0 AND 15),
  count bigint NOT NULL DEFAULT 0
);
INSERT INTO subscriber_totals (slot, count) SELECT 0, count(*) FROM subscribers;

CREATE FUNCTION subscribers_apply_total() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT count(*) INTO delta FROM new_rows;
  ELSE
    SELECT -count(*) INTO delta FROM old_rows;
  END IF;
  IF delta <> 0 THEN
    INSERT INTO subscriber_totals AS t (slot, count) VALUES (pg_backend_pid() % 16, delta)
    ON CONFLICT (slot) DO UPDATE SET count = t.count + EXCLUDED.count;
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
