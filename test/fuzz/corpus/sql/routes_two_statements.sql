INSERT INTO "orders.eu" SELECT id FROM orders WHERE amount >= 5 PARTITION BY id;
INSERT INTO others SELECT id FROM orders;
