-- wrk: the same POST again and again, so every request after the first is a replay.
wrk.method = "POST"
wrk.body = '{"orderId":"order-42","amount":120}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Idempotency-Key"] = "bench:order-42"
