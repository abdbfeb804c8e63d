#pragma once

// OpTables: the ops of one trace at the three levels a comparison offers (framework op, HLO op,
// GPU kernel), as plain name-keyed totals. An adapter over the op analyses (opmetrics.h,
// frameworkopstats.h) so the diff depends on names and numbers only, never on a trace's
// interned ids: two traces have separate string tables and only text can be matched.
//
// Framework rows come from the framework op stats (device rows, then host rows; `where` says
// which); HLO rows from the device op metrics; kernel rows from the kernel stats summed per
// kernel name (launch configurations merged), or, when no kernel carries launch details, from
// one pass over the raw GPU stream lines per EventKind. IDLE rows are left out: idle time is
// not an op and its change is the step-time change seen from the other side.
//
// Plain values, immutable once built. Invariant: within one level (where, name) is unique.

#include "core/analysis/frameworkopstats.h"
#include "core/analysis/opmetrics.h"
#include "core/model/trace.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core::compare {

enum class OpLevel : uint8_t { Framework, Hlo, Kernel };
inline constexpr int kOpLevelCount = 3;

// "framework", "hlo", "kernel".
const char *opLevelName(OpLevel level);
// Display label: "Framework op", "HLO op", "Kernel".
const char *opLevelLabel(OpLevel level);
bool parseOpLevel(std::string_view text, OpLevel *level);

inline constexpr const char *kWhereDevice = "Device";
inline constexpr const char *kWhereHost = "Host";

struct OpTotals
{
    std::string name;
    std::string category;        // framework: op type; HLO: category; kernel: the op it ran for
    std::string where;           // framework level: kWhereDevice / kWhereHost; else empty
    int64_t occurrences = 0;
    TimePs totalPs = 0;
    TimePs selfPs = 0;           // kernels: equal to totalPs
};

struct OpTables
{
    std::array<std::vector<OpTotals>, kOpLevelCount> levels;
    TimePs deviceOpTimePs = 0;   // device op time without IDLE (the gate's fallback measure)
    TimePs hostOpTimePs = 0;

    const std::vector<OpTotals> &at(OpLevel level) const { return levels[size_t(level)]; }
};

OpTables opTables(const Trace &trace, const analysis::OpStats &ops,
                  const analysis::FrameworkOpStats &framework);

// Kernel totals per kernel name over the raw GPU stream lines (one pass, per-kind tables).
std::vector<OpTotals> scanKernelTotals(const Trace &trace);

} // namespace tracedesk::core::compare
