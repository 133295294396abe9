-- runtime.sql: a statement that fails on its third row (a function's error), after two rows
WITH v(x) AS (VALUES (1), (2), (3), (4))
SELECT x, CASE WHEN x = 3 THEN abs(-9223372036854775807 - 1) ELSE x * 10 END AS y FROM v;
SELECT 'not reached';
