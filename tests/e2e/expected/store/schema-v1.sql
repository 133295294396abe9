-- A leak store as the first schema version wrote it (SQLite): the version-1 tables and one
-- stored report with one leak. store_sqlite.sh opens it with the current leakray, which must
-- upgrade it in place and keep the report.
CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE report ( id INTEGER PRIMARY KEY, ingest_hash TEXT NOT NULL UNIQUE, content_hash TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, error TEXT, source TEXT NOT NULL, app TEXT NOT NULL, version TEXT NOT NULL, device TEXT NOT NULL, at BIGINT NOT NULL, ingested_at BIGINT NOT NULL, leak_count INTEGER NOT NULL, retained_bytes BIGINT NOT NULL);
CREATE TABLE leak ( signature TEXT PRIMARY KEY, kind TEXT NOT NULL, short_description TEXT NOT NULL, pattern TEXT, description TEXT);
CREATE TABLE occurrence ( report_id BIGINT NOT NULL REFERENCES report(id) ON DELETE CASCADE, signature TEXT NOT NULL REFERENCES leak(signature), instances BIGINT NOT NULL, retained_bytes BIGINT NOT NULL, retained_objects BIGINT NOT NULL, trace TEXT, PRIMARY KEY (report_id, signature));
INSERT INTO store_meta VALUES ('schema_version', '1');
INSERT INTO report VALUES (1, '0b5c8f3cf4c3e3a5c0a9f0e1d2c3b4a596877869', 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', 'analyze', 'ok', NULL, 'old.hprof', 'demo', '0.9', 'pixel', 1793491200000, 1793491260000, 1, 48);
INSERT INTO leak VALUES ('6f83e047ef35245f709411bcad14cb5241ad9e2f', 'application', 'EventBus.LISTENERS', NULL, NULL);
INSERT INTO occurrence VALUES (1, '6f83e047ef35245f709411bcad14cb5241ad9e2f', 2, 48, 2, NULL);
