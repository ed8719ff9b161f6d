-- Indexes are built after the bulk load (see analyzer/store); this file lists them.
CREATE INDEX IF NOT EXISTS idx_members_bundle ON members(bundle_id, kind);
CREATE INDEX IF NOT EXISTS idx_events_bundle_time ON events(bundle_id, time_ns);
CREATE INDEX IF NOT EXISTS idx_events_member ON events(member_id, line);
CREATE INDEX IF NOT EXISTS idx_hits_signature ON hits(bundle_id, signature);
CREATE INDEX IF NOT EXISTS idx_hits_event ON hits(event_id);
CREATE INDEX IF NOT EXISTS idx_facts_name ON facts(bundle_id, name);
CREATE INDEX IF NOT EXISTS idx_findings_bundle ON findings(bundle_id, rank);
CREATE INDEX IF NOT EXISTS idx_timeline_bundle ON timeline(bundle_id, ord);
-- child-side indexes of the foreign keys, so that replacing a bundle (ON DELETE CASCADE) is fast
CREATE INDEX IF NOT EXISTS idx_facts_member ON facts(member_id);
CREATE INDEX IF NOT EXISTS idx_warnings_bundle ON warnings(bundle_id);
CREATE INDEX IF NOT EXISTS idx_clocks_bundle ON clocks(bundle_id);
CREATE INDEX IF NOT EXISTS idx_evidence_finding ON finding_evidence(finding_id);
