-- TPC-H Q15: top supplier (validation parameter DATE = 1996-01-01). The view revenue0 of the
-- spec's text is written as a common table expression (one statement instead of CREATE VIEW,
-- SELECT, DROP VIEW).
-- SQLite dialect copy of datasets/tpch/queries/q15.sql (datasets/tpch/sqlite/README.md).
-- Changes:
--   - date '1996-01-01' + interval '3 months' -> date('1996-01-01', '+3 months') (no INTERVAL type)
--   - date 'YYYY-MM-DD' -> 'YYYY-MM-DD' (no DATE type: dates are ISO text, whose order is the dates' order)
with revenue0 (supplier_no, total_revenue) as (
    select
        l_suppkey,
        sum(l_extendedprice * (1 - l_discount))
    from
        lineitem
    where
        l_shipdate >= '1996-01-01'
        and l_shipdate < date('1996-01-01', '+3 months')
    group by
        l_suppkey
)
select
    s_suppkey,
    s_name,
    s_address,
    s_phone,
    total_revenue
from
    supplier,
    revenue0
where
    s_suppkey = supplier_no
    and total_revenue = (
        select
            max(total_revenue)
        from
            revenue0
    )
order by
    s_suppkey;
