-- 0005: who must act on each verdict (issue 28): runs.actor is the
-- verdict's actor, "author", "user", "environment" or "none", a query copy
-- of verdict_json's "actor" like verdict is of its "decision". Runs stored
-- before the actor existed get the one their decision implies (keep: none;
-- fix, drop: author); their decisions are not re-decided here (a result
-- of the older rubric keeps its verdict). The run_summary view shows it.

ALTER TABLE runs ADD COLUMN actor TEXT;

UPDATE runs SET actor = coalesce(verdict_json ->> '$.actor', CASE verdict
        WHEN 'keep' THEN 'none'
        WHEN 'fix' THEN 'author'
        WHEN 'drop' THEN 'author'
        WHEN 'needs_setup' THEN 'user'
        WHEN 'not_assessed' THEN 'environment' END)
    WHERE verdict IS NOT NULL;

CREATE INDEX runs_by_actor ON runs (scan_id, actor);

DROP VIEW run_summary;
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
       r.actor       AS actor,
       (SELECT count(*) FROM tools t WHERE t.run_id = r.id)    AS tools,
       (SELECT count(*) FROM findings f WHERE f.run_id = r.id) AS findings,
       r.total_ms    AS total_ms,
       r.created_at  AS created_at
FROM runs r JOIN servers s ON s.id = r.server_id;
