-- 0004: run_summaries, the part of each run's result the census report
-- reads, as JSON with the keys of result_json: the target; the liveness
-- status, handshake, protocol version, serverInfo, exit code and total
-- time; tool names and annotations; one empty object per prompt, resource
-- and template; finding codes, severities and subjects; probe classes and
-- their graded elements' names and passes; the score; the verdict's
-- decision and rules. SaveRun writes one with each run, so a report of
-- 20,000 servers reads about 4 KB per run instead of the 13 KB result. It
-- is a table of its own, not a column of runs: a column after result_json
-- is read through result_json's overflow pages.
--
-- Runs stored before this migration get theirs here, from result_json.
-- The -> operator keeps each value's JSON text (numbers and escapes as
-- stored); json() keeps a subquery's array JSON; json_each of a null (an
-- empty Go slice) is one row without a key, which counts as none.

CREATE TABLE run_summaries (
    run_id  INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    summary TEXT NOT NULL
);

INSERT INTO run_summaries (run_id, summary)
SELECT id, json_object(
    'target', result_json -> '$.target',
    'liveness', json_object(
        'status', result_json -> '$.liveness.status',
        'handshakeCompleted', result_json -> '$.liveness.handshakeCompleted',
        'protocolVersion', result_json -> '$.liveness.protocolVersion',
        'serverInfo', result_json -> '$.liveness.serverInfo',
        'exitCode', result_json -> '$.liveness.exitCode',
        'timings', json_object('totalMs', result_json -> '$.liveness.timings.totalMs')),
    'tools', json((SELECT json_group_array(json_object('name', t.value -> '$.name', 'annotations', t.value -> '$.annotations'))
        FROM json_each(result_json, '$.tools') AS t WHERE t.key IS NOT NULL)),
    'prompts', json((SELECT json_group_array(json_object()) FROM json_each(result_json, '$.prompts') WHERE key IS NOT NULL)),
    'resources', json((SELECT json_group_array(json_object()) FROM json_each(result_json, '$.resources') WHERE key IS NOT NULL)),
    'resourceTemplates', json((SELECT json_group_array(json_object()) FROM json_each(result_json, '$.resourceTemplates') WHERE key IS NOT NULL)),
    'findings', json((SELECT json_group_array(json_object('code', f.value -> '$.code', 'severity', f.value -> '$.severity',
            'subject', f.value -> '$.subject'))
        FROM json_each(result_json, '$.findings') AS f WHERE f.key IS NOT NULL)),
    'probes', json((SELECT json_group_array(json_object('class', p.value -> '$.class',
            'elements', json((SELECT json_group_array(json_object('name', e.value -> '$.name', 'pass', e.value -> '$.pass'))
                FROM json_each(p.value, '$.elements') AS e WHERE e.key IS NOT NULL))))
        FROM json_each(result_json, '$.probes') AS p WHERE p.key IS NOT NULL)),
    'score', result_json -> '$.score',
    'verdict', CASE WHEN json_type(result_json, '$.verdict') = 'object' THEN json_object(
        'decision', result_json -> '$.verdict.decision',
        'rules', json((SELECT json_group_array(json_object('name', r.value -> '$.name', 'fired', r.value -> '$.fired',
                'decision', r.value -> '$.decision'))
            FROM json_each(result_json, '$.verdict.rules') AS r WHERE r.key IS NOT NULL))) END)
FROM runs;
