-- 0001: the base schema. Every run keeps the whole probe.Result as JSON in
-- runs.result_json (the exact round trip); the other columns and the child
-- tables are query copies of it, so reports can use SQL. Later migrations may
-- add columns and tables but never drop runs.result_json, targets or scans
-- columns: Merge reads shard databases of older versions through them.

CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
);

-- One invocation: `mcpvet probe`, `mcpvet scan` or `mcpvet triage`.
-- Times are UTC, "YYYY-MM-DDTHH:MM:SS.ffffffZ", so they sort as text.
CREATE TABLE scans (
    id             INTEGER PRIMARY KEY,
    started_at     TEXT NOT NULL,
    finished_at    TEXT,
    kind           TEXT NOT NULL CHECK (kind IN ('probe', 'scan', 'triage')),
    source         TEXT NOT NULL DEFAULT '',
    options        TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(options)),
    seed           INTEGER,
    shard_index    INTEGER NOT NULL DEFAULT 0,
    shard_count    INTEGER NOT NULL DEFAULT 0,
    rubric_version TEXT NOT NULL DEFAULT '',
    status         TEXT NOT NULL DEFAULT 'running'
                   CHECK (status IN ('running', 'done', 'interrupted', 'failed'))
);

-- The launch plans of a scan, stored before anything runs so an interrupted
-- scan can resume with the pending ones.
CREATE TABLE targets (
    id      INTEGER PRIMARY KEY,
    scan_id INTEGER NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
    key     TEXT NOT NULL,
    plan    TEXT CHECK (plan IS NULL OR json_valid(plan)),
    status  TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done')),
    UNIQUE (scan_id, key)
);

-- A server identity across scans.
CREATE TABLE servers (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL,
    version TEXT NOT NULL DEFAULT '',
    source  TEXT NOT NULL DEFAULT '',
    UNIQUE (name, version, source)
);

-- One probe of one server. A target has at most one run per scan.
CREATE TABLE runs (
    id                  INTEGER PRIMARY KEY,
    scan_id             INTEGER NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
    server_id           INTEGER NOT NULL REFERENCES servers (id),
    target_key          TEXT NOT NULL,
    created_at          TEXT NOT NULL,
    transport           TEXT NOT NULL DEFAULT '',
    sandbox             TEXT NOT NULL DEFAULT '',
    status              TEXT NOT NULL,
    handshake_completed INTEGER NOT NULL DEFAULT 0,
    handshake           TEXT NOT NULL DEFAULT '',
    detail              TEXT NOT NULL DEFAULT '',
    evidence            TEXT NOT NULL DEFAULT '',
    protocol_version    TEXT NOT NULL DEFAULT '',
    server_name         TEXT,
    server_title        TEXT,
    server_version      TEXT,
    capabilities        TEXT,
    instructions_bytes  INTEGER NOT NULL DEFAULT 0,
    start_ms            REAL NOT NULL DEFAULT 0,
    handshake_ms        REAL NOT NULL DEFAULT 0,
    list_ms             REAL NOT NULL DEFAULT 0,
    probe_ms            REAL NOT NULL DEFAULT 0,
    total_ms            REAL NOT NULL DEFAULT 0,
    stderr_tail         TEXT NOT NULL DEFAULT '',
    exit_code           INTEGER,
    stdout_noise        TEXT NOT NULL DEFAULT '',
    score               REAL,
    verdict             TEXT,
    verdict_json        TEXT,
    rubric_version      TEXT NOT NULL DEFAULT '',
    result_json         TEXT NOT NULL,
    UNIQUE (scan_id, target_key),
    FOREIGN KEY (scan_id, target_key) REFERENCES targets (scan_id, key)
);

CREATE TABLE tools (
    run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx           INTEGER NOT NULL,
    name          TEXT NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    description   TEXT NOT NULL DEFAULT '',
    input_schema  TEXT,
    output_schema TEXT,
    annotations   TEXT,
    raw           TEXT,
    PRIMARY KEY (run_id, idx)
);

CREATE TABLE prompts (
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    name        TEXT NOT NULL,
    title       TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    arguments   TEXT,
    raw         TEXT,
    PRIMARY KEY (run_id, idx)
);

CREATE TABLE resources (
    run_id    INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx       INTEGER NOT NULL,
    uri       TEXT NOT NULL,
    name      TEXT NOT NULL DEFAULT '',
    mime_type TEXT NOT NULL DEFAULT '',
    raw       TEXT,
    PRIMARY KEY (run_id, idx)
);

CREATE TABLE resource_templates (
    run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx          INTEGER NOT NULL,
    uri_template TEXT NOT NULL,
    name         TEXT NOT NULL DEFAULT '',
    raw          TEXT,
    PRIMARY KEY (run_id, idx)
);

CREATE TABLE findings (
    run_id   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx      INTEGER NOT NULL,
    code     TEXT NOT NULL,
    severity TEXT NOT NULL CHECK (severity IN ('fatal', 'error', 'warn', 'info')),
    subject  TEXT NOT NULL DEFAULT '',
    pointer  TEXT NOT NULL DEFAULT '',
    value    TEXT NOT NULL DEFAULT '',
    message  TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, idx)
);

-- Telemetry: one row per request the scanner sent.
CREATE TABLE calls (
    run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx          INTEGER NOT NULL,
    seq          INTEGER NOT NULL,
    method       TEXT NOT NULL,
    tool         TEXT NOT NULL DEFAULT '',
    input_hash   TEXT NOT NULL DEFAULT '',
    latency_ms   REAL NOT NULL DEFAULT 0,
    output_bytes INTEGER NOT NULL DEFAULT 0,
    error_code   INTEGER,
    is_error     INTEGER NOT NULL DEFAULT 0,
    outcome      TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, idx)
);

-- Failure-injection calls and how each response graded.
CREATE TABLE probes (
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    method      TEXT NOT NULL DEFAULT '',
    tool        TEXT NOT NULL DEFAULT '',
    param       TEXT NOT NULL DEFAULT '',
    sent        TEXT,
    class       TEXT NOT NULL DEFAULT '',
    latency_ms  REAL NOT NULL DEFAULT 0,
    response    TEXT,
    text        TEXT NOT NULL DEFAULT '',
    elements    TEXT,
    score       REAL,
    destructive INTEGER NOT NULL DEFAULT 0,
    open_world  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, idx)
);
