-- The installation-wide send limiter (src/workers/README.md, "Rate limits"). One statement per grant,
-- serialised by the lock on the single send_limiter row, so instances never over-grant together.

-- name: rate-grant
-- Grants up to :want send permits. app.message_rate is a token bucket (:rate tokens per second, at
-- most :burst banked); the sliding window allows at most :window_rate grants in any interval of
-- :window_ms (0: no window). Returns the permits granted and, when fewer than wanted, how long until
-- more could be granted (ms).
WITH l AS (
  SELECT tokens, refilled_at, greatest(clock_timestamp(), refilled_at) AS t
  FROM send_limiter WHERE id = 1 FOR UPDATE
), bucket AS (
  SELECT t,
         CASE WHEN :rate::float8 > 0
              THEN least(:burst::float8, tokens + :rate::float8 * extract(epoch FROM t - refilled_at)::float8)
              ELSE :want::float8 END AS avail
  FROM l
), win AS (
  SELECT coalesce(sum(g.n), 0)::int AS used, min(g.granted_at) AS oldest
  FROM send_window_grants g, l
  WHERE :window_rate::int > 0 AND g.granted_at > l.t - :window_ms::int * interval '1 millisecond'
), grant_ AS (
  SELECT bucket.t, bucket.avail,
         greatest(0, least(:want::int, floor(bucket.avail)::int,
                           CASE WHEN :window_rate::int > 0 THEN :window_rate::int - win.used ELSE :want::int END)) AS n,
         win.oldest
  FROM bucket, win
), logged AS (
  INSERT INTO send_window_grants (granted_at, n)
  SELECT t, n FROM grant_ WHERE n > 0 AND :window_rate::int > 0
), pruned AS (
  DELETE FROM send_window_grants
  WHERE granted_at <= (SELECT t FROM l) - greatest(:window_ms::int, 1000) * interval '1 millisecond'
)
UPDATE send_limiter SET
  tokens = CASE WHEN :rate::float8 > 0 THEN grant_.avail - grant_.n ELSE 0 END,
  refilled_at = grant_.t
FROM grant_
WHERE send_limiter.id = 1
RETURNING grant_.n AS granted,
  CASE WHEN :rate::float8 > 0 AND grant_.avail - grant_.n < 1
       THEN ceil((1 - (grant_.avail - grant_.n)) / :rate::float8 * 1000)::int ELSE 0 END AS bucket_wait_ms,
  CASE WHEN :window_rate::int > 0 AND grant_.n < :want::int AND grant_.oldest IS NOT NULL
       THEN greatest(0, ceil(extract(epoch FROM grant_.oldest + :window_ms::int * interval '1 millisecond' - grant_.t) * 1000))::int
       ELSE 0 END AS window_wait_ms;
