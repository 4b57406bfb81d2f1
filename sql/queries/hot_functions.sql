-- hot_functions.sql - the hottest functions of the latest run, in its
-- measure (samples, or executions for a run with exact counts), with host
-- time (samples outside bytecode) as its own line in a sampled run.
--   sqlite3 -header -column profile.db < sql/queries/hot_functions.sql
WITH run AS (SELECT max(id) AS id FROM runs)
SELECT module, function, measure, weight, percent
FROM hot_functions WHERE run_id = (SELECT id FROM run)
UNION ALL
SELECT '', '(host)', 'samples', sum(samples),
       round(100.0 * sum(samples) /
             (SELECT sum(samples) FROM pc_samples WHERE run_id = (SELECT id FROM run)), 2)
FROM pc_samples WHERE run_id = (SELECT id FROM run) AND function_id IS NULL
HAVING sum(samples) > 0
ORDER BY weight DESC
LIMIT 20;
