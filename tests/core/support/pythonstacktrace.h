#pragma once

// A Python-stack trace in miniature, as PyTorch writes it in 2025-26: the record_function range
// R starts inside the short __enter__ frame E and outlives it, so the layout places R on a row
// below E; K runs under R. Times in microseconds: main 0-100, E 10-20, R 15-90, K 30-60.

namespace testsupport {

inline constexpr char kRangeInsideShortFrame[] = R"({"traceEvents": [
  {"ph": "X", "cat": "python_function", "name": "main", "pid": 1, "tid": 1, "ts": 0,
   "dur": 100},
  {"ph": "X", "cat": "python_function", "name": "E", "pid": 1, "tid": 1, "ts": 10, "dur": 10},
  {"ph": "X", "cat": "user_annotation", "name": "R", "pid": 1, "tid": 1, "ts": 15, "dur": 75},
  {"ph": "X", "cat": "cpu_op", "name": "K", "pid": 1, "tid": 1, "ts": 30, "dur": 30}
]})";

} // namespace testsupport
