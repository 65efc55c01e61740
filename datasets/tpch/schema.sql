-- TPC-H schema (specification clause 1.4), in the PostgreSQL dialect strata speaks.
--
-- Column types follow the spec: identifiers INTEGER (BIGINT for the order keys, which pass 2^31
-- above SF 300), DECIMAL(15,2) for every decimal, DATE, CHAR(n) and VARCHAR(n) with the spec's
-- lengths. Primary keys are the spec's (clause 1.4.2.2); the foreign keys of clause 1.4.2.3 are
-- listed as comments: declaring them makes every loaded row pay for a lookup, and the generator
-- guarantees them (tests/datasets/test_tpch.c checks every one).
-- Load order: region, nation, supplier, customer, part, partsupp, orders, lineitem.

CREATE TABLE region (
    r_regionkey  INTEGER NOT NULL,
    r_name       CHAR(25) NOT NULL,
    r_comment    VARCHAR(152),
    PRIMARY KEY (r_regionkey)
);

CREATE TABLE nation (
    n_nationkey  INTEGER NOT NULL,
    n_name       CHAR(25) NOT NULL,
    n_regionkey  INTEGER NOT NULL,     -- references region (r_regionkey)
    n_comment    VARCHAR(152),
    PRIMARY KEY (n_nationkey)
);

CREATE TABLE supplier (
    s_suppkey    INTEGER NOT NULL,
    s_name       CHAR(25) NOT NULL,
    s_address    VARCHAR(40) NOT NULL,
    s_nationkey  INTEGER NOT NULL,     -- references nation (n_nationkey)
    s_phone      CHAR(15) NOT NULL,
    s_acctbal    DECIMAL(15,2) NOT NULL,
    s_comment    VARCHAR(101) NOT NULL,
    PRIMARY KEY (s_suppkey)
);

CREATE TABLE customer (
    c_custkey    INTEGER NOT NULL,
    c_name       VARCHAR(25) NOT NULL,
    c_address    VARCHAR(40) NOT NULL,
    c_nationkey  INTEGER NOT NULL,     -- references nation (n_nationkey)
    c_phone      CHAR(15) NOT NULL,
    c_acctbal    DECIMAL(15,2) NOT NULL,
    c_mktsegment CHAR(10) NOT NULL,
    c_comment    VARCHAR(117) NOT NULL,
    PRIMARY KEY (c_custkey)
);

CREATE TABLE part (
    p_partkey     INTEGER NOT NULL,
    p_name        VARCHAR(55) NOT NULL,
    p_mfgr        CHAR(25) NOT NULL,
    p_brand       CHAR(10) NOT NULL,
    p_type        VARCHAR(25) NOT NULL,
    p_size        INTEGER NOT NULL,
    p_container   CHAR(10) NOT NULL,
    p_retailprice DECIMAL(15,2) NOT NULL,
    p_comment     VARCHAR(23) NOT NULL,
    PRIMARY KEY (p_partkey)
);

CREATE TABLE partsupp (
    ps_partkey    INTEGER NOT NULL,    -- references part (p_partkey)
    ps_suppkey    INTEGER NOT NULL,    -- references supplier (s_suppkey)
    ps_availqty   INTEGER NOT NULL,
    ps_supplycost DECIMAL(15,2) NOT NULL,
    ps_comment    VARCHAR(199) NOT NULL,
    PRIMARY KEY (ps_partkey, ps_suppkey)
);

CREATE TABLE orders (
    o_orderkey      BIGINT NOT NULL,
    o_custkey       INTEGER NOT NULL,  -- references customer (c_custkey)
    o_orderstatus   CHAR(1) NOT NULL,
    o_totalprice    DECIMAL(15,2) NOT NULL,
    o_orderdate     DATE NOT NULL,
    o_orderpriority CHAR(15) NOT NULL,
    o_clerk         CHAR(15) NOT NULL,
    o_shippriority  INTEGER NOT NULL,
    o_comment       VARCHAR(79) NOT NULL,
    PRIMARY KEY (o_orderkey)
);

CREATE TABLE lineitem (
    l_orderkey      BIGINT NOT NULL,   -- references orders (o_orderkey)
    l_partkey       INTEGER NOT NULL,  -- references part (p_partkey)
    l_suppkey       INTEGER NOT NULL,  -- references supplier (s_suppkey); (l_partkey, l_suppkey)
                                       -- references partsupp (ps_partkey, ps_suppkey)
    l_linenumber    INTEGER NOT NULL,
    l_quantity      DECIMAL(15,2) NOT NULL,
    l_extendedprice DECIMAL(15,2) NOT NULL,
    l_discount      DECIMAL(15,2) NOT NULL,
    l_tax           DECIMAL(15,2) NOT NULL,
    l_returnflag    CHAR(1) NOT NULL,
    l_linestatus    CHAR(1) NOT NULL,
    l_shipdate      DATE NOT NULL,
    l_commitdate    DATE NOT NULL,
    l_receiptdate   DATE NOT NULL,
    l_shipinstruct  CHAR(25) NOT NULL,
    l_shipmode      CHAR(10) NOT NULL,
    l_comment       VARCHAR(44) NOT NULL,
    PRIMARY KEY (l_orderkey, l_linenumber)
);
