#pragma once

// The naive way to read an XSpace, kept as the yardstick for the reader's speed: read the whole
// file into memory and parse it with the generated protobuf classes (arena-allocated).
// `tracedesk-cli bench` reports readXSpaceFiles against it.

#include <string>

namespace tracedesk::core {

// Seconds spent in XSpace::ParseFromString on an arena for the file's bytes (reading the file is
// not timed), or -1 when the file cannot be read or does not parse.
double naiveXSpaceParseSeconds(const std::string &path);

} // namespace tracedesk::core
