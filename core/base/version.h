#pragma once

// The TraceDesk version shown by the executables; kept in step with project(VERSION) in the
// top-level CMakeLists.txt.

namespace tracedesk::core {

inline constexpr const char *kVersion = "0.1.0";

} // namespace tracedesk::core
