-- Requests whose client went away before the answer (status 499), counted apart from
-- successes and failures. Hosts of schema version 1 counted them in usage_failures under
-- status 499, which reading usage still counts as cancelled.
ALTER TABLE usage_days ADD COLUMN cancelled bigint NOT NULL DEFAULT 0;
