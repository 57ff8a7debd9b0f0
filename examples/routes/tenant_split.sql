INSERT INTO acme_events SELECT customer, kind, amount, at FROM events WHERE tenant = 'acme';
INSERT INTO tenant_events SELECT tenant, customer, kind, amount FROM events
WHERE tenant <> 'acme' PARTITION BY tenant;
