SELECT id, amount
FROM orders
WHERE amount >= 100;
