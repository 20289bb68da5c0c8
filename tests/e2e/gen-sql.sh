#!/bin/bash
# gen-sql.sh ROWS - prints a deterministic SQL script for sqlite3 (no
# random functions, no time functions): table creation, ROWS inserts in one
# transaction, an index, aggregate queries, updates and deletes.  Used by the
# sqlite3 tests as a fixed workload.
rows=${1:-2000}
cat <<SQL
CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, qty INTEGER, note BLOB);
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $rows)
INSERT INTO item SELECT i, printf('item-%05d-%s', i, substr('abcdefghijklmnopqrstuvwxyz', 1 + i % 26)),
                        (i * 7919) % 1000, zeroblob(i % 200) FROM n;
COMMIT;
CREATE INDEX item_qty ON item(qty);
SELECT count(*), sum(qty), max(length(name)), sum(length(note)) FROM item;
SELECT qty % 10 AS bucket, count(*), avg(qty) FROM item GROUP BY bucket ORDER BY bucket;
SELECT name FROM item WHERE qty BETWEEN 100 AND 110 ORDER BY name LIMIT 5;
UPDATE item SET name = name || '-x', qty = qty + 1 WHERE id % 3 = 0;
DELETE FROM item WHERE id % 5 = 0;
SELECT count(*), sum(qty), group_concat(substr(name, 1, 6), ',') FROM (SELECT name, qty FROM item ORDER BY id LIMIT 8);
CREATE TABLE pairs AS SELECT a.id AS x, b.id AS y FROM item a JOIN item b ON a.qty = b.qty AND a.id < b.id;
SELECT count(*) FROM pairs;
SQL
