SELECT id, amount
FROM orders
WHERE amount >= 50 OR note IS NULL
