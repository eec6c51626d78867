-- Client-CPU workload for bench/bench_vs_pgbench.sh (SCRIPT_OPT=--file=bench/set20.sql):
-- twenty \set meta-commands of the kinds real custom scripts use, then one
-- cheap indexed read, so that the client's expression evaluation dominates.
\set naccounts 100000 * :scale
\set ntellers 10 * :scale
\set aid random(1, :naccounts)
\set bid random(1, :scale)
\set tid random(1, :ntellers)
\set delta random(-5000, 5000)
\set hot random_zipfian(1, :naccounts, 1.07)
\set near random_gaussian(1, :naccounts, 5.0)
\set recent random_exponential(1, :naccounts, 3.0)
\set spread permute(:aid - 1, :naccounts, :default_seed) + 1
\set bucket abs(hash(:aid, :random_seed)) % 64
\set h2 hash_fnv1a(:tid) # hash_murmur2(:bid, 17)
\set band CASE WHEN :delta < -2500 THEN 0 WHEN :delta < 2500 THEN 1 ELSE 2 END
\set price 100.0 + :delta / 100.0 * 1.5
\set rounded int(:price * 100 + 0.5)
\set clamp least(greatest(:rounded, 0), 25000)
\set pick CASE WHEN :band = 1 AND :bucket < 32 THEN :hot ELSE :near END
\set ratio sqrt(:recent) / (1 + ln(:naccounts))
\set skew (:pick % :naccounts) + 1
\set chosen (:bucket * 7919 + :skew) % :naccounts + 1
SELECT abalance FROM pgbench_accounts WHERE aid IN (:aid, :chosen);
