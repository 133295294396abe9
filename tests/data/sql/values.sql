-- values.sql: every cell type and what needs escaping or quoting in each output mode:
-- integers, reals, NULL, blobs, text with commas, quotes, line breaks, tabs, escape
-- characters, UTF-8, a cell past the table's display limit, an empty result, a statement
-- that returns no columns.
SELECT 1 AS one, -2.5 AS a_real, 1e300 * 10 AS big, NULL AS no_value, x'00ff41' AS bytes,
       'a,b "c"' || char(10) || 'd' AS csv_text, char(9, 27, 127) || 'x' AS controls,
       'héllo ✓ 日本' AS utf8, '' AS empty;
SELECT printf('%.250c', 'y') AS long_text, zeroblob(2) AS zeros, x'' AS no_bytes, 0.1 + 0.2 AS sum;
SELECT id FROM objects WHERE 0;
CREATE TEMP TABLE t(a, "b c");
INSERT INTO t VALUES (1, 'one'), (22, NULL), (333, 'three, ' || char(13) || 'lines');
SELECT * FROM t ORDER BY a;
SELECT a AS "col,with ""quotes""" FROM t WHERE a > 1;
