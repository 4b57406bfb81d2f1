-- hot_instructions_context.sql - the 5 hottest instructions of the latest
-- run, each shown with the 3 instructions before and after it (the code a
-- macro op would fuse), with their weight in the run's measure (samples,
-- or executions for a run with exact counts).  '>>' marks the hot one.
--   sqlite3 -header -column profile.db < sql/queries/hot_instructions_context.sql
WITH run AS (SELECT max(id) AS id FROM runs),
weights AS (
  SELECT function_id, offset, measure, weight FROM instruction_weights
  WHERE run_id = (SELECT id FROM run) AND function_id IS NOT NULL),
numbered AS (
  SELECT i.function_id, i.offset, i.text,
         row_number() OVER (PARTITION BY i.function_id ORDER BY i.offset) AS n
  FROM instructions i JOIN functions f ON f.id = i.function_id
  WHERE f.run_id = (SELECT id FROM run)),
hot AS (
  SELECT function_id, offset, measure,
         row_number() OVER (ORDER BY weight DESC, function_id, offset) AS rank
  FROM weights ORDER BY weight DESC, function_id, offset LIMIT 5)
SELECT h.rank, f.name AS function, c.offset,
       CASE WHEN c.offset = h.offset THEN '>>' ELSE '' END AS hot,
       c.text, h.measure, coalesce(w.weight, 0) AS weight
FROM hot h
JOIN numbered me ON me.function_id = h.function_id AND me.offset = h.offset
JOIN numbered c ON c.function_id = h.function_id AND c.n BETWEEN me.n - 3 AND me.n + 3
JOIN functions f ON f.id = h.function_id
LEFT JOIN weights w ON w.function_id = c.function_id AND w.offset = c.offset
ORDER BY h.rank, c.offset;
