-- 0003: one digest per listed item of a run, so a rug pull (a tool,
-- prompt or resource whose definition changed between runs) is one SQL
-- join away. digest is the hex SHA-256 of the item's canonical JSON
-- (name, title, description, schemas, arguments, annotations; member
-- order and spacing do not count), as results.ItemDigests computes it.

CREATE TABLE item_digests (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    kind   TEXT NOT NULL CHECK (kind IN ('tool', 'prompt', 'resource', 'template', 'instructions')),
    key    TEXT NOT NULL,
    digest TEXT NOT NULL,
    PRIMARY KEY (run_id, kind, key)
);

CREATE INDEX item_digests_by_key ON item_digests (kind, key, digest);
