#pragma once

// Row, Track and Plane: the columnar body of a Trace.
//
// A Track (an XLine, a thread, a stream, a counter) keeps its slices in Rows split by nesting
// depth. Invariant: within a Row slices are sorted by start and never overlap
// (start[i] + duration[i] <= start[i + 1]), so every viewport query is a binary search.
// Zero-duration slices are instants. All of it is immutable once the Trace is built.
// Starts stay plain (every viewport query binary-searches them); the other per-slice columns are
// PackedInts in the narrowest width their values fit.

#include "core/model/argsarena.h"
#include "core/model/flowtable.h"
#include "core/model/packedints.h"
#include "core/model/types.h"

#include <array>
#include <optional>
#include <vector>

namespace tracedesk::core {

struct Row
{
    std::vector<TimePs> start;
    PackedInts duration;
    PackedInts kind;              // index into Trace::kinds
    std::vector<ArgsRef> args;    // into the owning Track's arena; empty when no slice has args
    // Each column is empty, or has one entry per slice (kNoValue where absent).
    std::array<PackedInts, kSideColumnCount> side;

    size_t size() const { return start.size(); }
    TimePs end(size_t i) const { return start[i] + duration[i]; }
    ArgsRef argsAt(size_t i) const { return args.empty() ? kNoArgs : args[i]; }
    size_t memoryBytes() const;
};

struct CounterSeries
{
    std::vector<TimePs> time;
    std::vector<double> value;
    size_t size() const { return time.size(); }
};

// XSpace events with num_occurrences: statistics without a position on the timeline.
struct AggregateEvent
{
    uint32_t kind = 0;
    int64_t occurrences = 0;
    TimePs duration = 0;
    ArgsRef args = kNoArgs;
};

enum class TrackType : uint8_t { Slices, Counter };

// Where a slice sits inside its Track.
struct RowPosition
{
    uint32_t row = 0;
    uint32_t index = 0;
};

struct Track
{
    uint32_t plane = 0;
    StringId name = kEmptyString;
    int64_t sourceId = 0;        // XLine id / thread id / stream id
    TrackType type = TrackType::Slices;
    int32_t sortIndex = 0;
    std::vector<Row> rows;
    CounterSeries counter;
    std::vector<AggregateEvent> aggregates;
    ArgsArena args;
    TimePs begin = 0;            // earliest start, latest end (0, 0 when empty)
    TimePs end = 0;
    uint64_t sliceCount = 0;     // all rows, instants included

    uint64_t eventCount() const { return sliceCount + counter.size() + aggregates.size(); }
    bool empty() const { return eventCount() == 0; }
    size_t memoryBytes() const;

    // The deepest slice whose span contains t (end exclusive; an instant contains its own time).
    std::optional<RowPosition> deepestSliceAt(TimePs t) const;
    // The first slice starting at or after t (the shallowest row wins ties).
    std::optional<RowPosition> firstSliceFrom(TimePs t) const;
};

enum class PlaneKind : uint8_t { Device, Host, Metadata, Other };

struct Plane
{
    StringId name = kEmptyString;
    StringId host = kEmptyString;   // the host whose file this plane came from
    int64_t id = 0;                 // XPlane id / Chrome pid
    PlaneKind kind = PlaneKind::Other;
    int32_t sortIndex = 0;
    ArgsRef stats = kNoArgs;        // plane-level stats, in Trace::metaArgs
    std::vector<uint32_t> tracks;   // indices into Trace::tracks
};

// What a slice is: its name and the stats every slice of this kind shares (XSpace event
// metadata). Interning kinds keeps the per-slice cost to one uint32.
struct EventKind
{
    StringId name = kEmptyString;
    StringId displayName = kEmptyString;
    StringId category = kEmptyString;
    SliceRole role = SliceRole::None;
    uint32_t plane = 0;
    ArgsRef stats = kNoArgs;        // in Trace::metaArgs
    std::array<int64_t, kKindSideColumnCount> side = makeEmptySide();

    // The kind's value of any column (kNoValue for the per-slice-only ones).
    int64_t sideOf(SideColumn column) const
    {
        return int(column) < kKindSideColumnCount ? side[size_t(column)] : kNoValue;
    }

    static std::array<int64_t, kKindSideColumnCount> makeEmptySide()
    {
        std::array<int64_t, kKindSideColumnCount> a;
        a.fill(kNoValue);
        return a;
    }
};

} // namespace tracedesk::core
