-- Media files (spec 4.5, reference §11) and the subscriber import (spec 4.6, reference §6).

-- Uploaded files. `filename` is the sanitised, unique name the file is stored and served under; the
-- thumbnail (images only) has the same name in the store's `thumbs/` folder, so names never collide.
CREATE TABLE media (
  id           serial PRIMARY KEY,
  uuid         uuid NOT NULL DEFAULT gen_random_uuid(),
  provider     text NOT NULL CHECK (provider IN ('filesystem', 's3')),
  filename     text NOT NULL CHECK (filename ~ '^[A-Za-z0-9_][A-Za-z0-9._-]*$' AND char_length(filename) <= 200),
  content_type text NOT NULL,
  has_thumb    boolean NOT NULL DEFAULT false,
  size         bigint NOT NULL DEFAULT 0 CHECK (size >= 0),
  -- {width, height} for images, {} otherwise.
  meta         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(meta) = 'object'),
  created_at   timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT media_uuid_key UNIQUE (uuid),
  CONSTRAINT media_provider_filename_key UNIQUE (provider, filename)
);
CREATE INDEX media_created_at_idx ON media (provider, created_at DESC, id DESC);

-- The subscriber import. One import at a time across every instance (spec 4.6): the table holds exactly
-- one row, claimed with a conditional UPDATE. Its counters grow in the same transaction as each batch
-- of subscribers, so they always match what is committed.
CREATE TABLE imports (
  id           integer PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  -- Identifies the current run; a worker only writes while the row still carries its run.
  run_id       uuid,
  name         text NOT NULL DEFAULT '',
  status       text NOT NULL DEFAULT 'none' CHECK (status IN ('none', 'importing', 'stopping', 'finished', 'failed')),
  params       jsonb NOT NULL DEFAULT '{}',
  -- Data rows in the file: an estimate (line count) while importing, exact once finished.
  total        integer NOT NULL DEFAULT 0,
  -- Rows written (new or existing subscribers) and rows skipped as invalid, in committed batches.
  imported     integer NOT NULL DEFAULT 0,
  skipped      integer NOT NULL DEFAULT 0,
  -- Last line of the file covered by a committed batch.
  line         integer NOT NULL DEFAULT 0,
  -- Instance running the import and its last sign of life (a dead instance's import is failed).
  owner        text,
  heartbeat_at timestamptz,
  started_at   timestamptz,
  finished_at  timestamptz,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
INSERT INTO imports (id) VALUES (1);

-- The import log (GET /api/import/subscribers/logs): one row per event of the current run.
CREATE TABLE import_logs (
  id         bigserial PRIMARY KEY,
  run_id     uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  message    text NOT NULL
);
CREATE INDEX import_logs_run_idx ON import_logs (run_id, id);
