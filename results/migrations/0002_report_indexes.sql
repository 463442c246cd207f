-- 0002: indexes for the report queries and a flat view for ad-hoc SQL.
-- Runs by scan are already covered by UNIQUE (scan_id, target_key).

CREATE INDEX findings_by_code ON findings (code, severity);
CREATE INDEX findings_by_severity ON findings (severity);
CREATE INDEX runs_by_server ON runs (server_id);
CREATE INDEX runs_by_status ON runs (scan_id, status);
CREATE INDEX runs_by_verdict ON runs (scan_id, verdict);
CREATE INDEX calls_by_tool ON calls (tool) WHERE tool <> '';
CREATE INDEX probes_by_class ON probes (class);

-- run_summary is one row per run with its server and counts, for
-- `sqlite3 mcpvet.db 'select * from run_summary'`.
CREATE VIEW run_summary AS
SELECT r.id          AS run_id,
       r.scan_id     AS scan_id,
       r.target_key  AS target_key,
       s.name        AS name,
       s.version     AS version,
       s.source      AS source,
       r.status      AS status,
       r.handshake_completed AS handshake_completed,
       r.protocol_version    AS protocol_version,
       r.score       AS score,
       r.verdict     AS verdict,
       (SELECT count(*) FROM tools t WHERE t.run_id = r.id)    AS tools,
       (SELECT count(*) FROM findings f WHERE f.run_id = r.id) AS findings,
       r.total_ms    AS total_ms,
       r.created_at  AS created_at
FROM runs r JOIN servers s ON s.id = r.server_id;
