-- top.sql: the biggest objects, as `top` ranks them (sql output modes, tests/e2e/identity)
SELECT printf('0x%x', id) AS id, class, kind, shallow, retained, distance
FROM objects ORDER BY retained DESC, id LIMIT 15;
