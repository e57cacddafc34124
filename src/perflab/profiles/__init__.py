"""CPU and allocation profiles over steady's measured window: recorded with JDK Flight Recorder
(JVM modes) or the Go runtime's pprof (the Go reference), kept as gzip'ed folded stacks under the
run's folder, attributed to layers (HTTP server, serialization, persistence, JDBC driver, logging,
GC, JIT, other) and compared between two app/modes or runs. See docs/profiles.md."""
