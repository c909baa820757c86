-- campaign_recipients() walked the subscribers' primary key from id 1 on every call: the id range was
-- a condition on subscriber_lists only, and PostgreSQL does not carry a range across a join, so the
-- merge join with subscribers started at the table's first row. Each batch of a campaign cost time in
-- proportion to how far the campaign had got (178 ms at subscriber 500,000 of 1,000,000; 1.9 ms with
-- the range on both sides), which made a whole campaign quadratic in its size. Same eligibility rule
-- as 0001; only the range is now stated for subscribers too.
CREATE OR REPLACE FUNCTION campaign_recipients(p_campaign_id integer, p_after integer, p_upto integer, p_max_rows integer)
RETURNS TABLE (subscriber_id integer) LANGUAGE sql STABLE AS $$
  SELECT DISTINCT sl.subscriber_id
  FROM campaigns c
  JOIN campaign_lists cl ON cl.campaign_id = c.id
  JOIN lists l ON l.id = cl.list_id
  JOIN subscriber_lists sl ON sl.list_id = cl.list_id
  JOIN subscribers s ON s.id = sl.subscriber_id
  WHERE c.id = p_campaign_id
    AND sl.subscriber_id > p_after AND sl.subscriber_id <= p_upto
    AND s.id > p_after AND s.id <= p_upto
    AND s.status = 'enabled'
    AND CASE WHEN c.type = 'optin' THEN l.optin = 'double' AND sl.status = 'unconfirmed'
             ELSE sl.status <> 'unsubscribed' AND (l.optin = 'single' OR sl.status = 'confirmed') END
  ORDER BY sl.subscriber_id
  LIMIT p_max_rows
$$;
