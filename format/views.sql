-- views.sql - the views of the profile database (schema.sql), version 5.
--
-- Views hold no data: the collector drops and re-creates every one of them
-- whenever it creates a database or migrates it to a new version, so this
-- file always describes the views of a current database.  A run is either
-- sampled (pc_samples) or exact (exec_counts, runs.exact = 1); every view
-- reads both and says which measure a row is in.

DROP VIEW IF EXISTS opcode_profile;
DROP VIEW IF EXISTS hot_instructions;
DROP VIEW IF EXISTS hot_functions;
DROP VIEW IF EXISTS instruction_weights;

-- What each instruction weighs in its run: its samples in a sampled run
-- (function_id and offset NULL for host time), its executions in an exact
-- one.  measure is 'samples' or 'executions', the same for a whole run.
CREATE VIEW instruction_weights AS
SELECT p.run_id, p.function_id, p.offset, 'samples' AS measure, p.samples AS weight
FROM pc_samples p JOIN runs r ON r.id = p.run_id AND r.exact = 0
UNION ALL
SELECT e.run_id, e.function_id, e.offset, 'executions' AS measure, e.count AS weight
FROM exec_counts e;

-- Per function, hottest first within a run: its weight in the run's
-- measure and its percent of the whole run (of all samples, host time
-- included, or of all executions); samples 0 in an exact run, executions
-- NULL in a sampled one.
CREATE VIEW hot_functions AS
SELECT w.run_id, f.id AS function_id, m.name AS module, f.name AS function,
       w.measure, sum(w.weight) AS weight,
       CASE w.measure WHEN 'samples' THEN sum(w.weight) ELSE 0 END AS samples,
       CASE w.measure WHEN 'executions' THEN sum(w.weight) END AS executions,
       round(100.0 * sum(w.weight) / t.total, 2) AS percent
FROM instruction_weights w
JOIN functions f ON f.id = w.function_id
JOIN modules m ON m.id = f.module_id
JOIN (SELECT run_id, sum(weight) AS total FROM instruction_weights GROUP BY run_id) t
  ON t.run_id = w.run_id
GROUP BY w.run_id, f.id
ORDER BY w.run_id, weight DESC;

-- Per instruction with its disassembly, hottest first, in the same
-- columns as hot_functions.
CREATE VIEW hot_instructions AS
SELECT w.run_id, f.id AS function_id, f.name AS function, w.offset,
       o.name AS opcode, i.text, w.measure, w.weight,
       CASE w.measure WHEN 'samples' THEN w.weight ELSE 0 END AS samples,
       CASE w.measure WHEN 'executions' THEN w.weight END AS executions,
       round(100.0 * w.weight / t.total, 2) AS percent
FROM instruction_weights w
JOIN functions f ON f.id = w.function_id
JOIN instructions i ON i.function_id = w.function_id AND i.offset = w.offset
JOIN opcodes o ON o.run_id = w.run_id AND o.id = i.opcode
JOIN (SELECT run_id, sum(weight) AS total FROM instruction_weights GROUP BY run_id) t
  ON t.run_id = w.run_id
ORDER BY w.run_id, w.weight DESC;

-- Per run and opcode: its static instructions, its weight in the run's
-- measure and percent of the run's bytecode (host time left out), with
-- samples and executions as in hot_functions.
CREATE VIEW opcode_profile AS
SELECT f.run_id, o.id AS opcode, o.name,
       count(*) AS instructions,
       CASE r.exact WHEN 0 THEN 'samples' ELSE 'executions' END AS measure,
       coalesce(sum(w.weight), 0) AS weight,
       CASE r.exact WHEN 0 THEN coalesce(sum(w.weight), 0) ELSE 0 END AS samples,
       CASE r.exact WHEN 0 THEN NULL ELSE coalesce(sum(w.weight), 0) END AS executions,
       round(100.0 * coalesce(sum(w.weight), 0) /
             (SELECT sum(q.weight) FROM instruction_weights q
              WHERE q.run_id = f.run_id AND q.function_id IS NOT NULL), 2) AS percent
FROM instructions i
JOIN functions f ON f.id = i.function_id
JOIN runs r ON r.id = f.run_id
JOIN opcodes o ON o.run_id = f.run_id AND o.id = i.opcode
LEFT JOIN (SELECT function_id, offset, sum(weight) AS weight
           FROM instruction_weights WHERE function_id IS NOT NULL
           GROUP BY function_id, offset) w
  ON w.function_id = i.function_id AND w.offset = i.offset
GROUP BY f.run_id, o.id
ORDER BY f.run_id, weight DESC;
