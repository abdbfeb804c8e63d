// Kernel stats (FORMATS.md 2.11): GPU kernels grouped by (kernel, launch configuration, op).
// `kernel_details` and the op are read per kernel from its stats; the details text is parsed
// once per distinct interned string.
//
// The op follows XProf (ConvertDeviceTraceXPlaneToKernelReports, xplane_to_kernel_stats_db.cc):
// a kernel's `tf_op` (legacy TF: `level 0`) is parsed as `name:Type` and only the name is kept,
// a value without a colon being a bare name. Such an op is Tensor Core eligible when its name
// matches XProf's patterns, its `equation` is a two-operand einsum, or the kernel itself uses
// Tensor Cores. A kernel without one falls back to its HLO op, eligible by the patterns only.

#include "core/analysis/opmetrics.h"
#include "core/analysis/opnames.h"
#include "core/analysis/opscan.h"
#include "core/base/cancel.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace tracedesk::core::analysis {

using namespace detail;

namespace {

constexpr size_t kMaxKernels = 1000;

enum KeyFlag : uint8_t { kFromTfOp = 1, kEinsumEligible = 2 };

struct KernelKey
{
    uint32_t name;          // the kernel's name: the same kernel on several GPUs is one row
    uint32_t details;       // index into the parsed details table
    std::string_view op;    // op name (views the trace's string table); empty when none
    uint8_t flags;          // KeyFlag bits
    bool operator==(const KernelKey &) const = default;
};

struct KernelKeyHash
{
    size_t operator()(const KernelKey &k) const
    {
        uint64_t h = (uint64_t(k.name) << 32 | k.details) * 0x9E3779B97F4A7C15ull;
        h ^= std::hash<std::string_view>()(k.op) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
        return size_t(h ^ k.flags);
    }
};

} // namespace

KernelStatsDb kernelStats(const Trace &trace, std::optional<TimeRange> range)
{
    const StatKeys keys(trace);
    if (keys.kernelDetails == StringId(UINT32_MAX))
        return {};   // no stat of that name anywhere: no kernel has launch details
    // Distinct launch configurations; strings that parse alike (keys we ignore differ) share one.
    std::vector<KernelLaunchParams> params(1);            // 0: no details
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint64_t, uint64_t>, uint32_t> paramsByValue;
    auto canonical = [&](const KernelLaunchParams &p) {
        const auto key = std::make_tuple(
            p.registers, p.staticShared, p.dynamicShared,
            uint64_t(p.block[0]) << 42 ^ uint64_t(p.block[1]) << 21 ^ p.block[2],
            uint64_t(p.grid[0]) << 42 ^ uint64_t(p.grid[1]) << 21 ^ p.grid[2]);
        auto [it, added] = paramsByValue.try_emplace(key, uint32_t(params.size()));
        if (added)
            params.push_back(p);
        return it->second;
    };
    std::unordered_map<StringId, uint32_t> paramsByString;
    std::unordered_map<std::string_view, uint32_t> paramsByText;
    std::unordered_map<KernelKey, uint32_t, KernelKeyHash> index;
    std::vector<std::pair<KernelKey, KernelReport>> rows;
    std::unordered_map<int64_t, std::string_view> opNameCache;
    auto opNameOf = [&](int64_t id) {
        auto [it, added] = opNameCache.try_emplace(id);
        if (added)
            it->second = tfOpName(trace.string(StringId(id)));
        return it->second;
    };
    StringId equationKey = StringId(UINT32_MAX);
    if (!trace.strings.find("equation", &equationKey))
        equationKey = StringId(UINT32_MAX);
    std::vector<int8_t> kindEinsum(trace.kinds.size(), -1);   // per kind: -1 not read yet
    std::unordered_map<int64_t, bool> einsumCache;   // by StringId of the equation
    auto einsumEligible = [&](const ArgValue &v) {
        if (v.type == ArgType::String)
            return isEinsumTensorCoreEligible(v.s);
        if (v.type != ArgType::StringRef)
            return false;
        auto [it, added] = einsumCache.try_emplace(int64_t(v.str), false);
        if (added)
            it->second = isEinsumTensorCoreEligible(trace.string(v.str));
        return it->second;
    };

    for (const Plane &plane : trace.planes) {
        if (deviceFamily(trace, plane) != DeviceFamily::Gpu)
            continue;
        for (uint32_t t : plane.tracks) {
            checkCancelled();
            const Track &track = trace.tracks[t];
            if (!isRawGpuLine(trace, track))
                continue;
            for (const Row &row : track.rows) {
                for (uint32_t i = 0; i < row.size(); ++i) {
                    if (range && !range->contains(row.start[i]))
                        continue;
                    const EventKind &kind = trace.kinds[row.kind[i]];
                    uint32_t details = 0;
                    int64_t level0 = kNoValue;
                    bool hasDetails = false;
                    bool einsum = false;
                    auto take = [&](const ArgValue &v) {
                        if (v.key == keys.kernelDetails && !hasDetails) {
                            hasDetails = true;
                            if (v.type == ArgType::StringRef) {
                                auto [it, added] = paramsByString.try_emplace(v.str, 0);
                                if (added)
                                    it->second = canonical(parseKernelDetails(trace.string(v.str)));
                                details = it->second;
                            } else if (v.type == ArgType::String) {
                                auto [it, added] = paramsByText.try_emplace(v.s, 0);
                                if (added)
                                    it->second = canonical(parseKernelDetails(v.s));
                                details = it->second;
                            }
                        } else if (v.key == keys.level0 && level0 == kNoValue
                                   && v.type == ArgType::StringRef) {
                            level0 = v.str;
                        } else if (v.key == equationKey) {
                            einsum = einsum || einsumEligible(v);
                        }
                    };
                    if (!row.args.empty())
                        track.args.forEach(row.args[i], take);
                    if (!hasDetails) {
                        trace.metaArgs.forEach(kind.stats, take);
                    } else if (!einsum) {
                        int8_t &k = kindEinsum[row.kind[i]];
                        if (k < 0) {
                            ArgValue v;
                            k = equationKey != StringId(UINT32_MAX)
                                && trace.metaArgs.find(kind.stats, equationKey, &v)
                                && einsumEligible(v);
                        }
                        einsum = k > 0;
                    }
                    if (!hasDetails)
                        continue;
                    const SliceRef ref{t, uint32_t(&row - track.rows.data()), i};
                    int64_t op = trace.side(ref, SideColumn::FrameworkOp);
                    if (op == kEmptyString)
                        op = kNoValue;
                    if (op == kNoValue)
                        op = level0;
                    uint8_t flags = 0;
                    std::string_view opName;
                    if (op != kNoValue) {
                        flags = kFromTfOp | (einsum ? kEinsumEligible : 0);
                        opName = opNameOf(op);
                    } else if (const int64_t hlo = trace.side(ref, SideColumn::HloOp);
                               hlo != kNoValue) {
                        opName = trace.string(StringId(hlo));
                    }
                    const KernelKey key{uint32_t(kind.name), details, opName, flags};
                    auto [it, added] = index.try_emplace(key, uint32_t(rows.size()));
                    if (added) {
                        KernelReport r;
                        r.minDurationPs = row.duration[i];
                        rows.emplace_back(key, std::move(r));
                    }
                    KernelReport &r = rows[it->second].second;
                    const TimePs d = row.duration[i];
                    ++r.occurrences;
                    r.totalDurationPs += d;
                    r.minDurationPs = std::min(r.minDurationPs, d);
                    r.maxDurationPs = std::max(r.maxDurationPs, d);
                }
            }
        }
    }

    KernelStatsDb out;
    out.reports.reserve(rows.size());
    std::unordered_map<uint32_t, bool> tensorCoreByName;
    for (auto &[key, r] : rows) {
        const KernelLaunchParams &p = params[key.details];
        r.name = std::string(trace.string(StringId(key.name)));
        r.opName = std::string(key.op);
        r.registersPerThread = p.registers;
        r.staticShmemBytes = p.staticShared;
        r.dynamicShmemBytes = p.dynamicShared;
        std::copy(p.block, p.block + 3, r.blockDim);
        std::copy(p.grid, p.grid + 3, r.gridDim);
        r.occupancyPct = p.occupancyPct;
        auto [tc, added] = tensorCoreByName.try_emplace(key.name, false);
        if (added)
            tc->second = isKernelUsingTensorCore(r.name);
        r.isKernelUsingTensorCore = tc->second;
        r.isOpTensorCoreEligible = isOpTensorCoreEligible(r.opName)
                                   || ((key.flags & kFromTfOp)
                                       && ((key.flags & kEinsumEligible)
                                           || r.isKernelUsingTensorCore));
        out.reports.push_back(std::move(r));
    }
    std::stable_sort(out.reports.begin(), out.reports.end(),
                     [](const KernelReport &a, const KernelReport &b) {
                         return a.totalDurationPs > b.totalDurationPs;
                     });
    out.distinctRows = out.reports.size();
    if (out.reports.size() > kMaxKernels)
        out.reports.resize(kMaxKernels);
    return out;
}

} // namespace tracedesk::core::analysis
