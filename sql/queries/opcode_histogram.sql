-- opcode_histogram.sql - samples per opcode in the latest run, with a bar.
--   sqlite3 -header -column profile.db < sql/queries/opcode_histogram.sql
SELECT name AS opcode, instructions, samples, percent,
       substr('##################################################', 1,
              CAST(round(percent / 2) AS INTEGER)) AS bar
FROM opcode_profile
WHERE run_id = (SELECT max(id) FROM runs) AND samples > 0
ORDER BY samples DESC;
