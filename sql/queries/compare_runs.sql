-- compare_runs.sql - two runs side by side: each function's share of the
-- samples in the previous and the latest run, biggest change first.
-- Functions are matched by module and name (addresses differ per run).
-- To compare other runs, replace the two ids in `pair`.
--   sqlite3 -header -column profile.db < sql/queries/compare_runs.sql
WITH pair AS (
  SELECT (SELECT max(id) FROM runs WHERE id < (SELECT max(id) FROM runs)) AS a,
         (SELECT max(id) FROM runs) AS b),
share AS (
  SELECT run_id, module, function, percent FROM hot_functions
  WHERE run_id IN ((SELECT a FROM pair), (SELECT b FROM pair))),
names AS (SELECT DISTINCT module, function FROM share)
SELECT n.module, n.function,
       coalesce(x.percent, 0) AS percent_a, coalesce(y.percent, 0) AS percent_b,
       round(coalesce(y.percent, 0) - coalesce(x.percent, 0), 2) AS change
FROM names n
LEFT JOIN share x ON x.module = n.module AND x.function = n.function
                 AND x.run_id = (SELECT a FROM pair)
LEFT JOIN share y ON y.module = n.module AND y.function = n.function
                 AND y.run_id = (SELECT b FROM pair)
ORDER BY abs(change) DESC, n.function;
