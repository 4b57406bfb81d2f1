-- compare_runs.sql - two runs of one kind side by side: each function's
-- percent of the run in the latest run and in the latest run before it
-- that has the same measure (samples, or executions: a share of time and
-- a share of executions are different things), biggest change first.
-- Functions are matched by module and name (addresses differ per run).
-- To compare other runs, replace the two ids in `pair`.
--   sqlite3 -header -column profile.db < sql/queries/compare_runs.sql
WITH latest AS (SELECT max(id) AS id FROM runs),
pair AS (
  SELECT (SELECT max(r.id) FROM runs r, runs b
          WHERE b.id = (SELECT id FROM latest) AND r.id < b.id AND r.exact = b.exact) AS a,
         (SELECT id FROM latest) AS b),
share AS (
  SELECT run_id, module, function, measure, percent FROM hot_functions
  WHERE run_id IN ((SELECT a FROM pair), (SELECT b FROM pair))),
names AS (SELECT DISTINCT module, function, measure FROM share)
SELECT (SELECT a FROM pair) AS run_a, (SELECT b FROM pair) AS run_b, n.measure,
       n.module, n.function,
       coalesce(x.percent, 0) AS percent_a, coalesce(y.percent, 0) AS percent_b,
       round(coalesce(y.percent, 0) - coalesce(x.percent, 0), 2) AS change
FROM names n
LEFT JOIN share x ON x.module = n.module AND x.function = n.function
                 AND x.run_id = (SELECT a FROM pair)
LEFT JOIN share y ON y.module = n.module AND y.function = n.function
                 AND y.run_id = (SELECT b FROM pair)
ORDER BY abs(change) DESC, n.function;
