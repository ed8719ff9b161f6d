-- faultline database, schema version 2: fleet analysis (docs/fleet.md).
-- Written by `faultline fleet` after the node bundles are merged into one database; read by the
-- fleet report, so `faultline report --db` renders the same fleet view without re-reading bundles.
-- One run per set of analysed bundles (bundles_key); rows go away with their bundles (CASCADE).

CREATE TABLE IF NOT EXISTS fleet_runs (
  id            INTEGER PRIMARY KEY,
  bundles_key   TEXT NOT NULL UNIQUE,     -- sorted sha256 of the analysed bundles, joined by ','
  bundles       INTEGER NOT NULL,         -- how many analysed bundles the run covers
  reference     TEXT,                     -- host whose clock the fleet times are expressed in
  exec_timeout_s    INTEGER,              -- HCCL_EXEC_TIMEOUT used by the inference (as logged, else default)
  connect_timeout_s INTEGER,              -- HCCL_CONNECT_TIMEOUT likewise
  timeouts_source   TEXT,                 -- logged | default
  notes         TEXT NOT NULL DEFAULT '[]' -- JSON array of strings: what the inference could not do
);

-- Bundles of the run: the analysed ones and those that could not be read (status 'failed').
CREATE TABLE IF NOT EXISTS fleet_members (
  run_id     INTEGER NOT NULL REFERENCES fleet_runs(id) ON DELETE CASCADE,
  bundle_id  INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
  status     TEXT NOT NULL,               -- analysed | failed
  PRIMARY KEY (run_id, bundle_id)
);

-- Per host: addresses, ranks, clock offset against the reference host, first error of the incident.
CREATE TABLE IF NOT EXISTS fleet_hosts (
  id                INTEGER PRIMARY KEY,
  run_id            INTEGER NOT NULL REFERENCES fleet_runs(id) ON DELETE CASCADE,
  host              TEXT NOT NULL,
  bundle_id         INTEGER REFERENCES bundles(id) ON DELETE CASCADE,
  ips               TEXT NOT NULL DEFAULT '[]',  -- JSON array of {"ip","source"}
  ranks             TEXT NOT NULL DEFAULT '[]',  -- JSON array of global ranks seen on the host
  offset_ns         INTEGER,              -- host clock minus reference clock; NULL = no shared event
  offset_events     INTEGER NOT NULL DEFAULT 0,  -- shared events the offset rests on
  offset_spread_ns  INTEGER,              -- max - min of the per-event differences
  offset_method     TEXT,                 -- which shared events (heartbeat arrival, crimer, op issue, init)
  offset_applied    INTEGER NOT NULL DEFAULT 0,  -- 1 when large enough to change the fleet order
  hccl_errors       INTEGER NOT NULL DEFAULT 0,  -- HCCL error lines of the incident
  silent            INTEGER NOT NULL DEFAULT 0,  -- ranks in the communicator, no error while others failed
  first_time_ns     INTEGER,              -- first error of the incident, as resolved on the host
  first_fleet_ns    INTEGER,              -- the same minus offset_ns (fleet order)
  first_quality     TEXT,
  first_member      TEXT,
  first_line        INTEGER,
  first_text        TEXT,
  first_signature   TEXT,
  first_class       TEXT,                 -- fault | collective
  UNIQUE (run_id, host)
);

-- Global ranks of the communicators: where each one ran.
CREATE TABLE IF NOT EXISTS fleet_ranks (
  run_id   INTEGER NOT NULL REFERENCES fleet_runs(id) ON DELETE CASCADE,
  rank     INTEGER NOT NULL,
  host     TEXT NOT NULL,
  ip       TEXT,
  device   INTEGER,
  pid      INTEGER,
  grp      TEXT,                          -- communicator (identifier / group name)
  source   TEXT NOT NULL,                 -- roster | local_rank | err_line
  PRIMARY KEY (run_id, rank, host)
);

-- The first failure (root node) of the fleet, with the rule of inference that found it.
CREATE TABLE IF NOT EXISTS fleet_first_failure (
  run_id        INTEGER PRIMARY KEY REFERENCES fleet_runs(id) ON DELETE CASCADE,
  host          TEXT NOT NULL,
  bundle_id     INTEGER REFERENCES bundles(id) ON DELETE SET NULL,
  rank          INTEGER,
  device        INTEGER,
  ip            TEXT,
  grp           TEXT,
  time_ns       INTEGER,                  -- as resolved on the host
  fleet_ns      INTEGER,                  -- in the reference host's clock
  time_quality  TEXT,
  rule          TEXT NOT NULL,            -- heartbeat-broadcast | different-first-error | late-arrival | ...
  rule_text     TEXT NOT NULL,            -- the rule, in words, with what it matched
  confidence    REAL NOT NULL,
  root_cause    TEXT,                     -- the host's own root-cause finding, if any
  root_cause_title TEXT,
  root_cause_confidence REAL,
  summary       TEXT NOT NULL,
  explains      TEXT NOT NULL DEFAULT '{}' -- JSON {"hosts": [...], "symptoms": [...]}: what it explains
);

CREATE TABLE IF NOT EXISTS fleet_evidence (
  id        INTEGER PRIMARY KEY,
  run_id    INTEGER NOT NULL REFERENCES fleet_runs(id) ON DELETE CASCADE,
  ord       INTEGER NOT NULL,
  host      TEXT NOT NULL,
  member    TEXT,
  line      INTEGER,
  time_ns   INTEGER,
  time_quality TEXT,
  text      TEXT NOT NULL,
  signature TEXT,
  finding   TEXT,                         -- the host's finding that cites the line, if any
  role      TEXT NOT NULL                 -- culprit | corroboration | broadcast | timing | roster
);

-- Other ranks the rules point at (disagreeing broadcasts, silent ranks, late ranks, ...).
CREATE TABLE IF NOT EXISTS fleet_suspects (
  run_id  INTEGER NOT NULL REFERENCES fleet_runs(id) ON DELETE CASCADE,
  ord     INTEGER NOT NULL,
  host    TEXT,
  rank    INTEGER,
  rule    TEXT NOT NULL,
  detail  TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS idx_fleet_members_bundle ON fleet_members(bundle_id);
CREATE INDEX IF NOT EXISTS idx_fleet_hosts_run ON fleet_hosts(run_id, host);
CREATE INDEX IF NOT EXISTS idx_fleet_hosts_bundle ON fleet_hosts(bundle_id);
CREATE INDEX IF NOT EXISTS idx_fleet_evidence_run ON fleet_evidence(run_id, ord);
CREATE INDEX IF NOT EXISTS idx_fleet_ff_bundle ON fleet_first_failure(bundle_id);
