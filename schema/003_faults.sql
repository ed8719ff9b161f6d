-- faultline database, schema version 3: fault events (docs/faults.md).
-- A hit of a signature with a `fault:` block becomes a finding of kind 'fault' (id
-- 'fault.<signature id>', one per host and signature). Its evidence rows (finding_evidence, ord 1 =
-- the earliest line) are the first hits in time order; these columns make it queryable without
-- parsing the summary:
--   SELECT f.host, f.finding, f.first_time_ns, f.fault_class, f.fault_role, fe.member, fe.line,
--          fe.text, fe.signature
--   FROM findings f JOIN finding_evidence fe ON fe.finding_id = f.id AND fe.ord = 1
--   WHERE f.bundle_id = ? AND f.kind = 'fault'
--   ORDER BY f.first_time_ns IS NULL, f.first_time_ns, f.rank;
-- Diagnosis findings (root_cause, symptom) leave fault_class, fault_role and fault NULL; their
-- first_time_ns is the earliest time of their evidence.
ALTER TABLE findings ADD COLUMN fault_class TEXT;    -- hardware|os|network|driver|cann|framework|user_config
ALTER TABLE findings ADD COLUMN fault_role TEXT;     -- cause | symptom
ALTER TABLE findings ADD COLUMN first_time_ns INTEGER; -- earliest timed evidence (UTC ns), NULL = none timed
ALTER TABLE findings ADD COLUMN fault TEXT;          -- JSON: signature, class, component, role, code,
                                                     --   cause, suggestion, count, causes, caused_by,
                                                     --   diagnosed_by (docs/faults.md)
CREATE INDEX IF NOT EXISTS idx_findings_kind ON findings(bundle_id, kind, first_time_ns);
