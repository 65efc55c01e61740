-- TPC-H Q7: volume shipping (validation parameters NATION1 = FRANCE, NATION2 = GERMANY)
-- SQLite dialect copy of datasets/tpch/queries/q07.sql (datasets/tpch/sqlite/README.md).
-- Changes:
--   - date 'YYYY-MM-DD' -> 'YYYY-MM-DD' (no DATE type: dates are ISO text, whose order is the dates' order)
--   - extract(year from x) -> CAST(strftime('%Y', x) AS INTEGER) (no EXTRACT)
select
    supp_nation,
    cust_nation,
    l_year,
    sum(volume) as revenue
from
    (
        select
            n1.n_name as supp_nation,
            n2.n_name as cust_nation,
            CAST(strftime('%Y', l_shipdate) AS INTEGER) as l_year,
            l_extendedprice * (1 - l_discount) as volume
        from
            supplier,
            lineitem,
            orders,
            customer,
            nation n1,
            nation n2
        where
            s_suppkey = l_suppkey
            and o_orderkey = l_orderkey
            and c_custkey = o_custkey
            and s_nationkey = n1.n_nationkey
            and c_nationkey = n2.n_nationkey
            and (
                (n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY')
                or (n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE')
            )
            and l_shipdate between '1995-01-01' and '1996-12-31'
    ) as shipping
group by
    supp_nation,
    cust_nation,
    l_year
order by
    supp_nation,
    cust_nation,
    l_year;
