-- Keys: only the SHA-256 of a key's secret and its 7-character prefix are kept.
-- Times are Unix microseconds in UTC; NULL means never (used) / not (revoked).
CREATE TABLE keys (
    id           INTEGER PRIMARY KEY AUTOINCREMENT, -- AUTOINCREMENT: IDs are never reused
    name         TEXT    NOT NULL UNIQUE,
    hash         TEXT    NOT NULL UNIQUE,
    prefix       TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
);

-- Usage of one key on one UTC day ('YYYY-MM-DD'); rows are only ever incremented.
CREATE TABLE usage_days (
    key_id       INTEGER NOT NULL REFERENCES keys (id),
    day          TEXT    NOT NULL,
    requests     INTEGER NOT NULL DEFAULT 0,
    successes    INTEGER NOT NULL DEFAULT 0,
    input_bytes  INTEGER NOT NULL DEFAULT 0,
    output_bytes INTEGER NOT NULL DEFAULT 0,
    pixels       INTEGER NOT NULL DEFAULT 0,
    engine_ms    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (key_id, day)
) WITHOUT ROWID;

-- Failed requests of a key's day by HTTP status (non-2xx only).
CREATE TABLE usage_failures (
    key_id INTEGER NOT NULL,
    day    TEXT    NOT NULL,
    status INTEGER NOT NULL,
    count  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (key_id, day, status),
    FOREIGN KEY (key_id, day) REFERENCES usage_days (key_id, day)
) WITHOUT ROWID;
