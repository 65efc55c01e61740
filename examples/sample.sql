-- sample.sql: a small shop, loaded from generate_series, and a few queries over it.
-- Run it with the shell:  build/release/strata demo.db -f examples/sample.sql

DROP TABLE IF EXISTS orders;
DROP TABLE IF EXISTS customers;

CREATE TABLE customers (
    id      INTEGER PRIMARY KEY,
    name    VARCHAR(40) NOT NULL,
    country VARCHAR(2)  NOT NULL
);

CREATE TABLE orders (
    id       INTEGER PRIMARY KEY,
    customer INTEGER NOT NULL REFERENCES customers(id),
    placed   DATE NOT NULL,
    amount   DECIMAL(10,2) NOT NULL CHECK (amount > 0)
);
CREATE INDEX orders_customer ON orders(customer);

INSERT INTO customers
SELECT n, 'customer ' || n, CASE n % 4 WHEN 0 THEN 'DE' WHEN 1 THEN 'FR' WHEN 2 THEN 'US' ELSE 'JP' END
FROM generate_series(1, 1000) AS g(n);

INSERT INTO orders
SELECT n, n % 997 + 1, DATE '2026-01-01' + (n % 300), (n % 97 + 1) * 1.25
FROM generate_series(1, 50000) AS g(n);

-- Revenue per country, largest first.
SELECT c.country, count(*) AS orders, sum(o.amount) AS revenue
FROM orders o JOIN customers c ON c.id = o.customer
GROUP BY c.country
ORDER BY revenue DESC;

-- The five best customers of March.
SELECT c.name, sum(o.amount) AS spent
FROM orders o JOIN customers c ON c.id = o.customer
WHERE o.placed BETWEEN DATE '2026-03-01' AND DATE '2026-03-31'
GROUP BY c.name
ORDER BY spent DESC, c.name
LIMIT 5;

-- Customers above the average order count (a subquery), and a point lookup by key.
SELECT count(*) AS busy_customers
FROM (SELECT customer, count(*) AS n FROM orders GROUP BY customer) AS per
WHERE n > (SELECT count(*) / 1000.0 FROM orders);

SELECT * FROM orders WHERE id = 4242;

EXPLAIN SELECT * FROM orders WHERE customer = 7;
