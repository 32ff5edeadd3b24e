"""The benchmark's report: results.json, results.md, latency.png, ratios and profiles."""
