-- strings.sql: strings and fields as a dump holds them (real text, real escapes)
SELECT id, value FROM strings ORDER BY length(value) DESC, id LIMIT 20;
SELECT f.name, f.type, f.value, f.ref FROM fields f
WHERE f.id = (SELECT id FROM objects WHERE kind = 'instance' ORDER BY retained DESC, id LIMIT 1)
ORDER BY f.name;
SELECT src, dst, name, kind, strength FROM edges
WHERE src = (SELECT id FROM objects ORDER BY retained DESC, id LIMIT 1) ORDER BY dst, name;
