-- name: campaign-progress
-- Progress of campaigns in flight, for /metrics.
SELECT id, status, sent, to_send FROM campaigns WHERE status IN ('running', 'paused') ORDER BY id;
