SELECT after.id, after.amount, after.status, op
FROM payments
WHERE op = 'c' AND after.amount >= 50.00
