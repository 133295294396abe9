-- bad.sql: a good statement, then a syntax error (its byte offset in this file)
SELECT 1 AS ok, 'first' AS what;
SELECT class, FROM objects;
