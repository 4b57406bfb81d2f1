-- opcode_histogram.sql - the weight of each opcode in the latest run
-- (samples, or executions for a run with exact counts), with a bar.
--   sqlite3 -header -column profile.db < sql/queries/opcode_histogram.sql
SELECT name AS opcode, instructions, measure, weight, percent,
       substr('##################################################', 1,
              CAST(round(percent / 2) AS INTEGER)) AS bar
FROM opcode_profile
WHERE run_id = (SELECT max(id) FROM runs) AND weight > 0
ORDER BY weight DESC;
