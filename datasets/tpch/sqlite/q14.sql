-- TPC-H Q14: promotion effect (validation parameter DATE = 1995-09-01)
-- SQLite dialect copy of datasets/tpch/queries/q14.sql (datasets/tpch/sqlite/README.md).
-- Changes:
--   - date '1995-09-01' + interval '1 month' -> date('1995-09-01', '+1 month') (no INTERVAL type)
--   - date 'YYYY-MM-DD' -> 'YYYY-MM-DD' (no DATE type: dates are ISO text, whose order is the dates' order)
select
    100.00 * sum(case
        when p_type like 'PROMO%'
            then l_extendedprice * (1 - l_discount)
        else 0
    end) / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from
    lineitem,
    part
where
    l_partkey = p_partkey
    and l_shipdate >= '1995-09-01'
    and l_shipdate < date('1995-09-01', '+1 month');
