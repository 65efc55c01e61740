-- TPC-H Q6: forecasting revenue change (validation parameters DATE = 1994-01-01, DISCOUNT = 0.06,
-- QUANTITY = 24)
-- SQLite dialect copy of datasets/tpch/queries/q06.sql (datasets/tpch/sqlite/README.md).
-- Changes:
--   - date '1994-01-01' + interval '1 year' -> date('1994-01-01', '+1 year') (no INTERVAL type)
--   - date 'YYYY-MM-DD' -> 'YYYY-MM-DD' (no DATE type: dates are ISO text, whose order is the dates' order)
--   - 0.06 - 0.01 and 0.06 + 0.01 -> 0.05 and 0.07 (REAL arithmetic makes 0.06 + 0.01 = 0.06999999999999999, which would leave out the lines of discount 0.07; strata and DuckDB compute the DECIMAL literals exactly)
select
    sum(l_extendedprice * l_discount) as revenue
from
    lineitem
where
    l_shipdate >= '1994-01-01'
    and l_shipdate < date('1994-01-01', '+1 year')
    and l_discount between 0.05 and 0.07
    and l_quantity < 24;
