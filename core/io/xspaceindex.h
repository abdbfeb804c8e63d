#pragma once

// The XSpace reader's first pass over one mapped file.
//
// indexXSpaceFile() walks the XSpace and its planes without entering any XLine: it adds the
// file's planes, event kinds (event metadata with their stats and side values) and plane stats
// to the TraceBuilder, builds each plane's lookup tables, and records every XLine's byte range
// for the line workers. Everything it interns is interned here, on the calling thread, so the
// workers only look names up. A PlaneTables is immutable once indexed, except `unknownKind`,
// which workers create lazily under the reader's shared lock.

#include "core/base/result.h"
#include "core/io/mappedfile.h"
#include "core/io/protowire.h"
#include "core/io/xspacestats.h"
#include "core/model/tracebuilder.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core::xspace {

inline constexpr uint32_t kNoKind = UINT32_MAX;

struct PlaneTables
{
    uint32_t plane = 0;                        // index into Trace::planes
    StatTable stats;
    IdTable<uint32_t> kinds;                   // event metadata id -> Trace::kinds index
    std::atomic<uint32_t> unknownKind{kNoKind};
};

struct LineRef
{
    const uint8_t *begin = nullptr;            // the XLine payload
    const uint8_t *end = nullptr;
    uint32_t tables = 0;                       // index into the load's PlaneTables list
};

struct FileIndex
{
    std::string path;
    MappedFile file;
    std::string host;
    std::vector<LineRef> lines;
    std::optional<uint64_t> profileStartNs;    // Task Environment profile_start_time
    uint64_t recordsWarned = 0;                // malformed-but-recoverable metadata records
};

PlaneKind planeKindFor(std::string_view planeName);

// Fills `file` (whose `path` and `file` are set) and appends its planes' tables to `tables`.
// Returns an error naming the file when the bytes are not a well-formed XSpace.
std::optional<Error> indexXSpaceFile(FileIndex &file,
                                     std::vector<std::unique_ptr<PlaneTables>> &tables,
                                     TraceBuilder &builder);

// "<path>: truncated or corrupt XSpace protobuf (<what> at byte <n>)"
Error corruptError(const std::string &path, const MappedFile &file, const WireReader &failed);

} // namespace tracedesk::core::xspace
