-- many.sql: a count, then a few hundred rows (--max-rows caps, streaming)
SELECT count(*) AS objects FROM objects;
SELECT id, class, shallow FROM objects ORDER BY id LIMIT 300;
