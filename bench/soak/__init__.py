"""Soak test: many concurrent streamed questions for minutes; memory and FDs must stay flat.

Usage::

    python -m bench.soak                                 # 200 streams for 300 s, 50 ms model
    python -m bench.soak --duration 20                   # the short form CI runs
    python -m bench.soak --concurrency 50 --duration 60 --latency-ms 20 --out /tmp/soak.json

It starts the stub LLM (`python -m tests.support.openai_stub`, its default policy: a
`run_sql` call with a sales-per-region query, then an answer quoting the rows, each after
`--latency-ms`) and the service (`python -m app`, SQLite checkpointer in a temporary
directory, LOG_LEVEL=WARNING) as subprocesses on 127.0.0.1, with the helpers of
`tests/support/service_process.py`. Then `--concurrency` clients each loop until
`--duration` has passed: ask a streamed question (a new thread, then the same thread for
`--questions-per-thread` questions in all) and read it to `end`. Nothing leaves 127.0.0.1
and every loop is bounded by a deadline.

Every stream is classified by how it ended:

- `completed`: a `completed` event, then `end`;
- `error:<ERROR_TYPE>`: a clear `error` event (code >= 400, an error_type, can_retry),
  then `end`; counted, but not a failure;
- `broken:<reason>`: anything else (no `end`, a reset, a non-200 status, longer than
  `--stream-timeout`): a failure.

The service's RSS, open file descriptors (/proc/<pid>/fd) and threads are sampled when it
is idle after start-up, after a warm-up (the baseline), every `--sample-every` seconds
during the load, and after it, once FDs are back at the baseline or `--settle` seconds
have passed, each time followed by one probe question on a fresh connection (which
also prunes the LLM client's expired keep-alive connections, so the pool is alike in both
samples). Finished runs stay resumable for two minutes (app/streaming/runs.py), so RSS
right after a load includes them; a leak shows as growth that does not level off.

The report is a table on stdout and JSON at `--out` (default bench/soak_results.json):
streams started, completed, errored (by error_type) and broken (by reason), latency
p50/p90/p99/max, throughput, RSS/FDs/threads before, at peak and after, and the sampled
timeline. The exit status is 1 if any stream broke, nothing completed, a probe failed,
the service died, RSS after exceeds `--max-rss-growth` times the baseline (3: it
includes the retained runs, ~35-50 KB each, 80-170 MB at 20-30 questions/s), the median
RSS of the last quarter exceeds that of the third by more than `--max-rss-drift` (5%, for
loads of at least 240 s), or FDs after exceed the baseline by more than `--fd-slack`
(0); 0 otherwise.
"""
