// Host-side ranges of an Nsight Systems export on their threads: CUDA runtime and driver calls
// (noted by correlation id for the launch flows), NVTX ranges and marks, and the OS runtime,
// MPI, cuBLAS and cuDNN tables.

#include "core/io/nsys/nsysimporter.h"

#include <algorithm>

namespace tracedesk::core::nsys {

namespace {

// ENUM_NSYS_EVENT_TYPE values of NVTX_EVENTS.eventType.
constexpr int64_t kNvtxMark = 34;
constexpr int64_t kNvtxPushPop = 59;
constexpr int64_t kNvtxStartEnd = 60;
constexpr int64_t kNvtxDomainCreate = 75;
// ENUM_NSYS_EVENT_CLASS: the RUNTIME table holds both APIs.
constexpr int64_t kCudaDriver = 1;

// PyTorch's emit_nvtx names a range "aten::mm, seq = 12, op_id = 3, sizes = [[2, 3], [3, 4]]":
// the operator is the text before its first ", key = " field. Nullopt for other ranges.
std::optional<std::string_view> emitNvtxOperator(std::string_view text)
{
    if (text.substr(0, 6) != "aten::")
        return std::nullopt;
    size_t end = text.size();
    for (std::string_view field : {", seq = ", ", op_id = ", ", sizes = "})
        end = std::min(end, text.find(field));
    return text.substr(0, end);
}

} // namespace

Result<bool> NsysImporter::readRuntime()
{
    const std::string_view t = "CUPTI_ACTIVITY_KIND_RUNTIME";
    if (!m_db.hasTable(t))
        return true;
    enum { Start, End, Tid, Correlation, NameId, EventClass };
    NsysQuery q(m_db, "SELECT "
                          + m_db.selectList(t, {"start", "end", "globalTid", "correlationId",
                                                "nameId", "eventClass"})
                          + " FROM " + std::string(t));
    TableProblems problems;
    while (q.next()) {
        if (auto tick = rowTick(q); !tick)
            return tick;
        TimePs start = 0, duration = 0;
        if (!span(q, Start, End, problems, &start, &duration))
            continue;
        const auto globalTid = q.optInteger(Tid);
        if (!globalTid) {
            ++problems.noThread;
            continue;
        }
        const std::string recorded = stringOr(q.optInteger(NameId), "(unnamed call)", problems);
        const std::string_view category =
            q.optInteger(EventClass) == kCudaDriver ? "cuda_driver" : "cuda_runtime";
        const uint32_t track = threadTrack(*globalTid);
        TrackBuilder &tb = m_builder.trackBuilder(track);
        const uint32_t staged = tb.addSlice(
            start, duration,
            kindFor(apiName(recorded), category, SliceRole::Runtime, m_builder.track(track).plane));
        if (auto c = q.optInteger(Correlation)) {
            tb.setSide(staged, SideColumn::CorrelationId, *c);
            m_gpu.noteLaunch(pidOf(*globalTid), *c, track, staged);
        }
    }
    return finishTable(q, t, problems);
}

Result<bool> NsysImporter::readNvtx()
{
    const std::string_view t = "NVTX_EVENTS";
    if (!m_db.hasTable(t))
        return true;
    enum { Start, End, Type, Text, TextId, Tid, Domain };
    const std::string select =
        "SELECT "
        + m_db.selectList(t, {"start", "end", "eventType", "text", "textId", "globalTid",
                              "domainId"})
        + " FROM " + std::string(t);
    TableProblems problems;
    auto textOf = [&](const NsysQuery &q, std::string_view fallback) {
        if (!q.isNull(Text))
            return std::string(q.text(Text));
        return stringOr(q.optInteger(TextId), fallback, problems);
    };
    {
        // Domains are named by their own records, which may come after the ranges using them.
        NsysQuery q(m_db, select);
        while (q.next()) {
            if (q.optInteger(Type) == kNvtxDomainCreate && !q.isNull(Domain))
                m_nvtxDomains[q.integer(Domain)] = textOf(q, "");
        }
        if (q.failed())
            return m_db.sqliteError("cannot be read: table NVTX_EVENTS");
    }
    const StringId textKey = m_builder.intern("nvtx text");
    NsysQuery q(m_db, select);
    while (q.next()) {
        if (auto tick = rowTick(q); !tick)
            return tick;
        const int64_t type = q.optInteger(Type).value_or(kNvtxPushPop);
        if (type != kNvtxMark && type != kNvtxPushPop && type != kNvtxStartEnd)
            continue;   // domain, category and thread naming records
        TimePs start = 0, duration = 0;
        if (!span(q, Start, End, problems, &start, &duration))
            continue;
        if (type != kNvtxMark && q.isNull(End))
            ++problems.unclosed;
        const auto globalTid = q.optInteger(Tid);
        if (!globalTid) {
            ++problems.noThread;
            continue;
        }
        std::string_view category = "nvtx";
        if (auto domain = q.optInteger(Domain); domain && *domain != 0) {
            if (auto it = m_nvtxDomains.find(*domain); it != m_nvtxDomains.end() && !it->second.empty())
                category = it->second;
        }
        const std::string text = textOf(q, "(unnamed range)");
        const uint32_t track = threadTrack(*globalTid);
        TrackBuilder &tb = m_builder.trackBuilder(track);
        // An emit_nvtx range is the operator itself, as the PyTorch profiler would record it;
        // its fields stay readable as the range's text.
        const auto op = type == kNvtxMark ? std::nullopt : emitNvtxOperator(text);
        ArgsArena::Writer args(tb.args());
        if (op && op->size() != text.size())
            args.addString(textKey, text);
        tb.addSlice(start, type == kNvtxMark ? 0 : duration,
                    kindFor(op ? *op : std::string_view(text), category,
                            op ? SliceRole::CpuOp : SliceRole::UserAnnotation,
                            m_builder.track(track).plane),
                    args.finish());
    }
    return finishTable(q, t, problems);
}

Result<bool> NsysImporter::readHostRanges(const std::string &table, std::string_view category)
{
    if (!m_db.hasTable(table) || !m_db.hasColumn(table, "globalTid"))
        return true;
    enum { Start, End, Tid, NameId, TextId };
    NsysQuery q(m_db, "SELECT " + m_db.selectList(table, {"start", "end", "globalTid", "nameId",
                                                          "textId"})
                          + " FROM " + table);
    TableProblems problems;
    while (q.next()) {
        if (auto tick = rowTick(q); !tick)
            return tick;
        TimePs start = 0, duration = 0;
        if (!span(q, Start, End, problems, &start, &duration))
            continue;
        const auto globalTid = q.optInteger(Tid);
        if (!globalTid) {
            ++problems.noThread;
            continue;
        }
        auto id = q.optInteger(NameId);
        if (!id)
            id = q.optInteger(TextId);
        const std::string name = stringOr(id, "(unnamed call)", problems);
        const uint32_t track = threadTrack(*globalTid);
        m_builder.trackBuilder(track).addSlice(
            start, duration,
            kindFor(apiName(name), category, SliceRole::None, m_builder.track(track).plane));
    }
    return finishTable(q, table, problems);
}

} // namespace tracedesk::core::nsys
