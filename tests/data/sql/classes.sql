-- classes.sql: per-class sums and the class table, two statements in one run
SELECT class, count(*) AS n, sum(shallow), sum(retained) FROM objects
GROUP BY class ORDER BY 4 DESC, 1 LIMIT 12;
SELECT name, super, instances, shallow, retained FROM classes
ORDER BY retained DESC, name LIMIT 8;
SELECT kind, count(*) FROM roots GROUP BY kind ORDER BY kind;
