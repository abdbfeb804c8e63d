// Kernel stats (FORMATS.md 2.11): GPU kernels grouped by (kernel, launch configuration, op).
// `kernel_details` and the op are read per kernel from its stats; the details text is parsed
// once per distinct interned string.

#include "core/analysis/opmetrics.h"
#include "core/analysis/opnames.h"
#include "core/analysis/opscan.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace tracedesk::core::analysis {

using namespace detail;

namespace {

constexpr size_t kMaxKernels = 1000;

struct KernelKey
{
    uint32_t kind;
    uint32_t details;   // index into the parsed details table
    int64_t op;         // StringId of the op, or kNoValue
    bool operator==(const KernelKey &) const = default;
};

struct KernelKeyHash
{
    size_t operator()(const KernelKey &k) const
    {
        uint64_t h = (uint64_t(k.kind) << 32 | k.details) * 0x9E3779B97F4A7C15ull;
        return size_t(h ^ (uint64_t(k.op) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2)));
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
    std::unordered_map<StringId, bool> namesOpCache;
    auto namesOp = [&](StringId id) {
        auto [it, added] = namesOpCache.try_emplace(id, false);
        if (added)
            it->second = parseFrameworkOp(trace.string(id)).kind != FrameworkOpKind::Unknown;
        return it->second;
    };

    for (const Plane &plane : trace.planes) {
        if (deviceFamily(trace, plane) != DeviceFamily::Gpu)
            continue;
        for (uint32_t t : plane.tracks) {
            const Track &track = trace.tracks[t];
            if (!isRawGpuLine(trace, track))
                continue;
            for (const Row &row : track.rows) {
                for (uint32_t i = 0; i < row.size(); ++i) {
                    if (range && !range->contains(row.start[i]))
                        continue;
                    const EventKind &kind = trace.kinds[row.kind[i]];
                    uint32_t details = 0;
                    int64_t op = kNoValue;
                    bool hasDetails = false;
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
                        } else if (v.key == keys.level0 && op == kNoValue
                                   && v.type == ArgType::StringRef) {
                            op = v.str;
                        }
                    };
                    int64_t level0 = kNoValue;
                    if (!row.args.empty()) {
                        track.args.forEach(row.args[i], take);
                        level0 = op;
                    }
                    if (!hasDetails)
                        trace.metaArgs.forEach(kind.stats, take);
                    if (!hasDetails)
                        continue;
                    // The framework op when it names one, else the HLO op, else `level 0`.
                    op = trace.side({t, uint32_t(&row - track.rows.data()), i},
                                    SideColumn::FrameworkOp);
                    if (op != kNoValue && !namesOp(StringId(op)))
                        op = kNoValue;
                    if (op == kNoValue)
                        op = trace.side({t, uint32_t(&row - track.rows.data()), i},
                                        SideColumn::HloOp);
                    if (op == kNoValue)
                        op = level0;
                    const KernelKey key{row.kind[i], details, op};
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
    std::unordered_map<uint32_t, bool> tensorCoreByKind;
    for (auto &[key, r] : rows) {
        const KernelLaunchParams &p = params[key.details];
        r.name = std::string(trace.string(trace.kinds[key.kind].name));
        if (key.op != kNoValue)
            r.opName = std::string(stripTraceMeMetadata(trace.string(uint32_t(key.op))));
        r.registersPerThread = p.registers;
        r.staticShmemBytes = p.staticShared;
        r.dynamicShmemBytes = p.dynamicShared;
        std::copy(p.block, p.block + 3, r.blockDim);
        std::copy(p.grid, p.grid + 3, r.gridDim);
        r.occupancyPct = p.occupancyPct;
        auto [tc, added] = tensorCoreByKind.try_emplace(key.kind, false);
        if (added)
            tc->second = isKernelUsingTensorCore(r.name);
        r.isKernelUsingTensorCore = tc->second;
        r.isOpTensorCoreEligible = isOpTensorCoreEligible(r.opName);
        out.reports.push_back(std::move(r));
    }
    std::stable_sort(out.reports.begin(), out.reports.end(),
                     [](const KernelReport &a, const KernelReport &b) {
                         return a.totalDurationPs > b.totalDurationPs;
                     });
    if (out.reports.size() > kMaxKernels)
        out.reports.resize(kMaxKernels);
    return out;
}

} // namespace tracedesk::core::analysis
