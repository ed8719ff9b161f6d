-- faultline database, schema version 1.
-- Forward-only: a later change adds schema/NNN_<what>.sql and bumps PRAGMA user_version.
-- Every row that comes from a bundle carries bundle_id; analysing the same bundle (same sha256)
-- again deletes its rows first (ON DELETE CASCADE), so rows are replaced, never duplicated.

CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS bundles (
  id          INTEGER PRIMARY KEY,
  path        TEXT NOT NULL,            -- as given on the command line
  name        TEXT NOT NULL,            -- file or directory name
  sha256      TEXT NOT NULL UNIQUE,     -- of the bundle file (directories: of the member list)
  size        INTEGER NOT NULL,         -- bytes of the bundle as read (compressed)
  read_at     TEXT NOT NULL,            -- when it was read (UTC); not printed in reports
  status      TEXT NOT NULL,            -- 'running' until the last row is written, then 'complete'
  files       INTEGER NOT NULL DEFAULT 0,
  bytes       INTEGER NOT NULL DEFAULT 0, -- uncompressed bytes of all members
  options     TEXT                      -- JSON of the options that shaped the rows (limits, keep_raw)
);

CREATE TABLE IF NOT EXISTS hosts (
  id          INTEGER PRIMARY KEY,
  bundle_id   INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  source      TEXT NOT NULL,            -- how it was decided: path, archive, syslog, manifest, hostname-file, default
  UNIQUE (bundle_id, name)
);

CREATE TABLE IF NOT EXISTS members (
  id              INTEGER PRIMARY KEY,
  bundle_id       INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
  path            TEXT NOT NULL,        -- inside the bundle; nested archives joined by '!/'
  kind            TEXT NOT NULL,        -- rules/classify/kinds.yaml
  kind_reason     TEXT NOT NULL,        -- path, content, or path+content
  host            TEXT NOT NULL,
  size            INTEGER NOT NULL,     -- uncompressed bytes read
  sha256          TEXT NOT NULL,
  lines           INTEGER NOT NULL DEFAULT 0,
  parsed_lines    INTEGER NOT NULL DEFAULT 0,  -- lines of a known kind the parser understood
  malformed_lines INTEGER NOT NULL DEFAULT 0,  -- lines of a known kind it did not
  long_lines      INTEGER NOT NULL DEFAULT 0,  -- lines cut at the line-length limit
  truncated       INTEGER NOT NULL DEFAULT 0,  -- 1 when the member was cut at a size limit or damage
  text_stored     TEXT NOT NULL DEFAULT 'none' -- none | whole | zstd
);

-- Whole text of small members (command outputs, version and config files), and with --keep-raw the
-- zstd-compressed text of every member.
CREATE TABLE IF NOT EXISTS member_text (
  member_id  INTEGER PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
  encoding   TEXT NOT NULL,             -- plain | zstd
  data       BLOB NOT NULL
);

-- Lines (or multi-line blocks) worth a row: severity >= warning, a signature hit, or a line a
-- parser marks as needed by rules (docs/events.md).
CREATE TABLE IF NOT EXISTS events (
  id           INTEGER PRIMARY KEY,
  bundle_id    INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
  member_id    INTEGER NOT NULL REFERENCES members(id) ON DELETE CASCADE,
  host         TEXT NOT NULL,
  line         INTEGER NOT NULL,
  line_count   INTEGER NOT NULL DEFAULT 1,
  offset       INTEGER NOT NULL,
  time_ns      INTEGER,                 -- UTC ns since epoch; NULL when unknown
  time_quality TEXT NOT NULL,           -- exact|local|assumed_utc|boot_relative|year_inferred|device_unsynced|unknown
  clock        TEXT NOT NULL,           -- the clock the time was printed in (core/types.hpp Clock)
  raw_civil_ns INTEGER,                 -- printed civil time read as UTC (year 2000 when no year printed)
  raw_has_year INTEGER NOT NULL DEFAULT 1,
  uptime_ns    INTEGER,                 -- uptime printed on the line, if any
  severity     TEXT NOT NULL,
  sev_rank     INTEGER NOT NULL,        -- 0 debug .. 5 critical
  module       TEXT,
  process      TEXT,
  pid          INTEGER,
  tid          INTEGER,
  device       INTEGER,
  rank         INTEGER,
  message      TEXT,
  text         TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS hits (
  id          INTEGER PRIMARY KEY,
  bundle_id   INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
  event_id    INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  signature   TEXT NOT NULL,            -- signature id, e.g. svm.map_va_not_fixed
  captures    TEXT NOT NULL DEFAULT '{}' -- JSON object of named captures
);

CREATE TABLE IF NOT EXISTS facts (
  id          INTEGER PRIMARY KEY,
  bundle_id   INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
  host        TEXT NOT NULL,
  name        TEXT NOT NULL,            -- docs/facts.md
  value       TEXT NOT NULL,
  member_id   INTEGER REFERENCES members(id) ON DELETE CASCADE,
  line        INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS warnings (
  id          INTEGER PRIMARY KEY,
  bundle_id   INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
  member      TEXT NOT NULL,            -- member path ('' = the bundle)
  message     TEXT NOT NULL
);

-- Per host and clock: what the clock stage decided (docs/clock.md).
CREATE TABLE IF NOT EXISTS clocks (
  id          INTEGER PRIMARY KEY,
  bundle_id   INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
  host        TEXT NOT NULL,
  clock       TEXT NOT NULL,            -- host_local, uptime, device_local, device_syslog, ...
  offset_ns   INTEGER,                  -- add to the printed time (read as UTC) to get UTC; boot time for uptime
  method      TEXT NOT NULL,            -- how it was found: btime, uptime-s, fitted, zone-stated, assumed, ...
  detail      TEXT
);

-- Correlator output (report reads only these and the tables above).
CREATE TABLE IF NOT EXISTS findings (
  id          INTEGER PRIMARY KEY,
  bundle_id   INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
  finding     TEXT NOT NULL,            -- catalog id, e.g. driver.reboot_pending
  kind        TEXT NOT NULL,            -- root_cause | symptom
  severity    TEXT NOT NULL,
  confidence  REAL NOT NULL,
  host        TEXT NOT NULL,
  title       TEXT NOT NULL,
  summary     TEXT NOT NULL,
  rank        INTEGER NOT NULL,         -- 1 = most likely, per bundle
  explained_by TEXT,                    -- for a symptom: the root cause finding id explaining it
  explains    TEXT NOT NULL DEFAULT '[]', -- JSON array of finding ids
  remediation TEXT NOT NULL DEFAULT '[]', -- JSON array of strings
  missing     TEXT NOT NULL DEFAULT '[]'  -- JSON array: evidence looked for and not found
);

CREATE TABLE IF NOT EXISTS finding_evidence (
  id          INTEGER PRIMARY KEY,
  finding_id  INTEGER NOT NULL REFERENCES findings(id) ON DELETE CASCADE,
  ord         INTEGER NOT NULL,
  member      TEXT,                     -- member path
  line        INTEGER,
  time_ns     INTEGER,
  text        TEXT NOT NULL,
  signature   TEXT,
  fact        TEXT
);

CREATE TABLE IF NOT EXISTS timeline (
  id           INTEGER PRIMARY KEY,
  bundle_id    INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
  ord          INTEGER NOT NULL,
  time_ns      INTEGER,
  time_quality TEXT NOT NULL,
  host         TEXT NOT NULL,
  member       TEXT,
  line         INTEGER,
  text         TEXT NOT NULL,
  signature    TEXT,
  finding      TEXT,
  role         TEXT NOT NULL            -- cause | first_failure | observation | context
);
