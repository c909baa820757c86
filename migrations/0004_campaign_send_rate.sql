-- Recent sending rate of campaigns, for GET /api/campaigns/running/stats (issue 4 §3, reference §7.9).
-- listmonk counts messages sent in the last minute in the memory of the instance that sends them, so
-- the figure is 0 on any other instance. Here every increase of campaigns.sent, by whichever instance
-- and whichever statement, is added to a ring of twelve 5-second buckets per campaign: the rate is the
-- same on every instance, and the table holds at most twelve rows per campaign.
CREATE TABLE campaign_send_rate (
  campaign_id integer NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  -- Position in the ring: (start of the bucket in epoch seconds / 5) mod 12.
  slot        smallint NOT NULL CHECK (slot BETWEEN 0 AND 11),
  -- Start of the 5-second bucket this slot currently counts.
  bucket      timestamptz NOT NULL,
  sent        integer NOT NULL CHECK (sent >= 0),
  PRIMARY KEY (campaign_id, slot)
);

CREATE FUNCTION campaigns_record_send_rate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  b timestamptz := to_timestamp(floor(extract(epoch FROM now()) / 5) * 5);
BEGIN
  -- A slot whose bucket is older than the current one is reused (its count restarts).
  INSERT INTO campaign_send_rate AS r (campaign_id, slot, bucket, sent)
  VALUES (NEW.id, (floor(extract(epoch FROM b) / 5)::bigint % 12)::smallint, b, NEW.sent - OLD.sent)
  ON CONFLICT (campaign_id, slot) DO UPDATE SET
    sent = CASE WHEN r.bucket = EXCLUDED.bucket THEN r.sent + EXCLUDED.sent ELSE EXCLUDED.sent END,
    bucket = EXCLUDED.bucket;
  RETURN NULL;
END
$$;

CREATE TRIGGER campaigns_send_rate AFTER UPDATE OF sent ON campaigns
  FOR EACH ROW WHEN (NEW.sent > OLD.sent) EXECUTE FUNCTION campaigns_record_send_rate();
