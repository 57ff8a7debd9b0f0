SELECT customer, kind, amount, at FROM events
WHERE tenant = 'acme' AND at >= TIMESTAMP '2026-12-01 00:00:00+00:00'
