-- The importer writes a run's batches on several connections at once on PostgreSQL (one per writer;
-- the rows of a file are shared out by e-mail, so two writers never touch the same subscriber). Each
-- writer's batches commit in file order, but the writers' commits interleave, so one high-water mark
-- no longer says what landed: stream_lines[w] is the last line of the file covered by writer w's
-- committed batches, and `line` stays what it was: the last line up to which every row is committed
-- (the least of them).
ALTER TABLE imports ADD COLUMN stream_lines integer[] NOT NULL DEFAULT '{}';
