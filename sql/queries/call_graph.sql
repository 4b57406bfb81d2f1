-- call_graph.sql - who calls whom in the latest run with exact counts
-- (pulley-collect --exact): each caller and callee (the same function for
-- recursion), the calls made, from how many call sites, and how many
-- returns came back.
--   sqlite3 -header -column profile.db < sql/queries/call_graph.sql
WITH run AS (SELECT max(run_id) AS id FROM edge_counts),
     transfer AS (
       SELECT e.function_id, e.to_function_id, e.count, o.flags
       FROM edge_counts e
       JOIN run ON e.run_id = run.id
       JOIN instructions i ON i.function_id = e.function_id AND i.offset = e.from_offset
       JOIN opcodes o ON o.run_id = e.run_id AND o.id = i.opcode),
     calls AS (
       SELECT function_id AS caller, to_function_id AS callee, sum(count) AS calls,
              count(*) AS call_sites
       FROM transfer WHERE flags & 8 GROUP BY 1, 2),  -- flag 8: a call
     returns AS (
       SELECT to_function_id AS caller, function_id AS callee, sum(count) AS returns
       FROM transfer WHERE flags & 2 AND NOT flags & 1 -- a terminator, not a branch: ret
       GROUP BY 1, 2)
SELECT f.name AS caller, g.name AS callee, c.calls, c.call_sites,
       coalesce(r.returns, 0) AS returns
FROM calls c
JOIN functions f ON f.id = c.caller
JOIN functions g ON g.id = c.callee
LEFT JOIN returns r ON r.caller = c.caller AND r.callee = c.callee
ORDER BY c.calls DESC, f.name, g.name;
