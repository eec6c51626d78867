-- A read-only aggregate for plans/jit.toml: a sequential scan of
-- pgbench_accounts (no index on bid), costed well above jit_above_cost = 1000,
-- so the planner JIT-compiles its expressions when JIT is on.
\set bid random(1, :scale)
SELECT count(*), sum(abalance), avg(abalance) FROM pgbench_accounts WHERE bid = :bid;
