SELECT after.id AS id, after.amount AS amount, after.currency, tenant, ts_ms AS changed_at
FROM payments
WHERE op <> 'd' AND after.amount >= 50.00
