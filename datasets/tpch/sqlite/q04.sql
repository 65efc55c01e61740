-- TPC-H Q4: order priority checking (validation parameter DATE = 1993-07-01)
-- SQLite dialect copy of datasets/tpch/queries/q04.sql (datasets/tpch/sqlite/README.md).
-- Changes:
--   - date '1993-07-01' + interval '3 months' -> date('1993-07-01', '+3 months') (no INTERVAL type)
--   - date 'YYYY-MM-DD' -> 'YYYY-MM-DD' (no DATE type: dates are ISO text, whose order is the dates' order)
select
    o_orderpriority,
    count(*) as order_count
from
    orders
where
    o_orderdate >= '1993-07-01'
    and o_orderdate < date('1993-07-01', '+3 months')
    and exists (
        select
            *
        from
            lineitem
        where
            l_orderkey = o_orderkey
            and l_commitdate < l_receiptdate
    )
group by
    o_orderpriority
order by
    o_orderpriority;
