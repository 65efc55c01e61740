-- TPC-H Q13: customer distribution (validation parameters WORD1 = special, WORD2 = requests)
-- SQLite dialect copy of datasets/tpch/queries/q13.sql (datasets/tpch/sqlite/README.md).
-- Changes:
--   - the derived table's column list c_orders (c_custkey, c_count) -> count(o_orderkey) as c_count inside it (SQLite has no column list on a derived table)
select
    c_count,
    count(*) as custdist
from
    (
        select
            c_custkey,
            count(o_orderkey) as c_count
        from
            customer left outer join orders on
                c_custkey = o_custkey
                and o_comment not like '%special%requests%'
        group by
            c_custkey
    ) as c_orders
group by
    c_count
order by
    custdist desc,
    c_count desc;
