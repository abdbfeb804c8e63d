#pragma once

// Density: what a folded run looks like per pixel column, so a zoomed-out row still shows
// where work happens, what dominates it and where it is idle.
//
// Design note
// -----------
// For every pixel column a folded run (viewportquery.h) touches, densityColumns() returns the
// fraction of the column's time covered by slices (coverage), the kind with the most time in the
// column (dominant kind), and the number of slices starting in it. A column with neither time
// nor a starting slice is not returned: gaps stay gaps.
//
// Exact path: the run's slices are walked once in order; each (narrow) slice adds its overlap to
// the one to three columns it touches. Cost O(slices in the run), used while columns hold few
// slices. Only the run's own slices count, so a wide slice sharing an edge column is not added.
//
// Binned path: DensityBins, built once per Row with at least kDensityMinSlices slices, hold a
// pyramid of fixed time bins (level 0: one bin per 16 slices but at least min(kDensityMinBins,
// slices / 4), power-of-two width; each level above halves the count). Per bin: covered fraction
// and the dominant kind's fraction (16-bit fixed point), the dominant kind, the number of slices
// starting in it. A level merges two bins: sums, and the dominant kind of the child whose dominant
// kind has more time (an approximation: a kind second everywhere never wins). A query picks the
// coarsest level whose bins are at most a quarter of a column (2 to 8 bins per column), or the
// exact path when even level 0 is wider than half a column. Bins cut by a column edge are prorated
// by overlap, so a column's coverage is exact up to one bin at each edge, and an idle gap stays
// empty except within one bin of its edges. Cost O(pixels * 8) reads of contiguous memory per row,
// whatever the number of slices: ~1.5 bytes per slice of memory buys it (up to 6 for rows under 32K
// slices).
//
// Thread rules: as viewportquery.h; DensityBins is immutable after construction.

#include "core/model/track.h"
#include "core/query/viewport.h"

#include <cstdint>
#include <vector>

namespace tracedesk::core {

struct VisibleItem;

inline constexpr size_t kDensityMinSlices = 8192;
inline constexpr size_t kDensityMinBins = 8192;

class DensityBins
{
public:
    DensityBins() = default;
    explicit DensityBins(const Row &row);

    bool empty() const { return m_levels.empty(); }
    // The level to use at this scale, or -1 when columns are too narrow for bins.
    int levelFor(double psPerPx) const;

    struct Sum
    {
        double busyPs = 0;
        double count = 0;
        uint32_t kind = 0;
    };
    // Time covered, slices starting and dominant kind over [a, b) at `level`.
    Sum sum(int level, TimePs a, TimePs b) const;

    TimePs binWidth(int level) const { return TimePs(1) << (m_shift + level); }
    size_t memoryBytes() const;

private:
    struct Level
    {
        std::vector<uint16_t> busy;      // covered fraction of the bin, x 65535
        std::vector<uint16_t> domBusy;   // the dominant kind's fraction, x 65535
        std::vector<uint32_t> kind;
        std::vector<uint32_t> count;     // slices starting in the bin (saturating)
    };
    TimePs m_origin = 0;
    int m_shift = 0;
    std::vector<Level> m_levels;
};

struct DensityColumn
{
    int64_t px = 0;         // Viewport::pixelOf column
    float coverage = 0;     // covered fraction of the column's time, [0, 1]; kNotMeasured
    uint32_t kind = 0;      // the kind with the most time in the column
    uint32_t count = 0;     // slices starting in the column
    uint32_t item = 0;      // index of the folded VisibleItem the column belongs to

    friend bool operator==(const DensityColumn &, const DensityColumn &) = default;
};

// Coverage of a column whose slices were not walked (see exactBudget below).
inline constexpr float kNotMeasured = -1.0f;

// Fills `out` (cleared first) with the columns of every folded item in `items` (as returned
// by queryRow for the same row and view), in time order, clipped to the view.
// Without bins each run's slices are walked. A caller that must stay fast (a frame on the GUI
// thread before the bins exist) passes `exactBudget`, the slices it may still walk: a run
// beyond it gets columns with exact start counts (binary searches) and kNotMeasured coverage,
// and the budget shrinks by what was walked.
void densityColumns(const Row &row, const Viewport &view, const std::vector<VisibleItem> &items,
                    std::vector<DensityColumn> &out, const DensityBins *bins = nullptr,
                    size_t *exactBudget = nullptr);

} // namespace tracedesk::core
