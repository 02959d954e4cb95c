-- Keys: only the SHA-256 of a key's secret and its 7-character prefix are kept.
-- NULL times mean never (used) / not (revoked).
CREATE TABLE keys (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- never reused
    name         text        NOT NULL UNIQUE,
    hash         text        NOT NULL UNIQUE,
    prefix       text        NOT NULL,
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at   timestamptz
);

-- Usage of one key on one UTC day; rows are only ever incremented.
CREATE TABLE usage_days (
    key_id       bigint NOT NULL REFERENCES keys (id),
    day          date   NOT NULL,
    requests     bigint NOT NULL DEFAULT 0,
    successes    bigint NOT NULL DEFAULT 0,
    input_bytes  bigint NOT NULL DEFAULT 0,
    output_bytes bigint NOT NULL DEFAULT 0,
    pixels       bigint NOT NULL DEFAULT 0,
    engine_ms    bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (key_id, day)
);

-- Failed requests of a key's day by HTTP status (non-2xx only).
CREATE TABLE usage_failures (
    key_id bigint  NOT NULL,
    day    date    NOT NULL,
    status integer NOT NULL,
    count  bigint  NOT NULL DEFAULT 0,
    PRIMARY KEY (key_id, day, status),
    FOREIGN KEY (key_id, day) REFERENCES usage_days (key_id, day)
);
