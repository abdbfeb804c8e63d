#include "core/io/xspaceindex.h"

#include "core/io/xspacereader.h"

namespace tracedesk::core::xspace {

namespace {

// Byte ranges of one XPlane's fields, collected first because field order is free (a plane's
// stat_metadata may follow the event metadata that needs it).
struct PlaneSpans
{
    int64_t id = 0;
    std::string_view name;
    std::vector<const uint8_t *> lineBegin;
    std::vector<const uint8_t *> lineEnd;
    std::vector<WireField> eventMetadata;
    std::vector<WireField> statMetadata;
    std::vector<WireField> stats;
};

bool walkPlane(const WireField &field, PlaneSpans *out, WireReader &parent)
{
    WireReader r = WireReader::of(field);
    WireField f;
    while (r.next(&f)) {
        if (f.number == 1) {
            if (f.type != WireType::Varint)
                return parent.fail("wrong wire type for XPlane.id", f.at);
            out->id = f.asInt64();
            continue;
        }
        if (f.number > 6)
            continue;
        if (f.type != WireType::Len)
            return parent.fail("wrong wire type for an XPlane field", f.at);
        switch (f.number) {
        case 2:
            out->name = f.bytes();
            break;
        case 3:
            out->lineBegin.push_back(f.data);
            out->lineEnd.push_back(f.data + f.size);
            break;
        case 4:
            out->eventMetadata.push_back(f);
            break;
        case 5:
            out->statMetadata.push_back(f);
            break;
        case 6:
            out->stats.push_back(f);
            break;
        default:
            break;
        }
    }
    return r.failed() ? parent.fail(r) : true;
}

// A map<int64, Message> entry: key = 1, value = 2. A missing key is 0, a missing value empty.
bool readMapEntry(const WireField &entry, int64_t *key, WireField *value, bool *hasKey,
                  WireReader &parent)
{
    WireReader r = WireReader::of(entry);
    WireField f;
    *key = 0;
    *hasKey = false;
    *value = WireField();
    value->type = WireType::Len;
    value->data = entry.data;
    while (r.next(&f)) {
        if (f.number == 1) {
            if (f.type != WireType::Varint)
                return parent.fail("wrong wire type for a map key", f.at);
            *key = f.asInt64();
            *hasKey = true;
        } else if (f.number == 2) {
            if (f.type != WireType::Len)
                return parent.fail("wrong wire type for a map value", f.at);
            *value = f;
        }
    }
    return r.failed() ? parent.fail(r) : true;
}

// Reads the XStat fields of a stats list into `args`/`side`; returns false on corrupt input.
bool readStats(const std::vector<WireField> &stats, const StatTable &table, TraceBuilder &builder,
               ArgsArena::Writer &args, SideValues &side, uint64_t *unknown, WireReader &parent)
{
    StatValue v;
    for (const WireField &field : stats) {
        if (!decodeStat(field, &v, parent))
            return false;
        const StatOutcome out = applyStat(v, table, args, side,
                                          [&](std::string_view s) { return builder.intern(s); });
        *unknown += out.unknownMetadata ? 1 : 0;
    }
    return true;
}

bool indexPlane(const PlaneSpans &spans, FileIndex &file, PlaneTables &tables,
                TraceBuilder &builder, WireReader &parent)
{
    tables.plane = builder.addPlane(spans.name, file.host, spans.id, planeKindFor(spans.name));

    for (const WireField &entry : spans.statMetadata) {
        int64_t key = 0;
        bool hasKey = false;
        WireField value;
        if (!readMapEntry(entry, &key, &value, &hasKey, parent))
            return false;
        WireReader r = WireReader::of(value);
        WireField f;
        int64_t id = 0;
        std::string_view name;
        while (r.next(&f)) {
            if (f.number == 1 && f.type == WireType::Varint)
                id = f.asInt64();
            else if (f.number == 2 && f.type == WireType::Len)
                name = f.bytes();
            else if (f.number <= 3)
                return parent.fail("wrong wire type for an XStatMetadata field", f.at);
        }
        if (r.failed())
            return parent.fail(r);
        StatInfo info = statRoleFor(name);
        info.name = builder.intern(name);
        tables.stats.insert(hasKey ? key : id, info);
    }
    tables.stats.seal();

    for (const WireField &entry : spans.eventMetadata) {
        int64_t key = 0;
        bool hasKey = false;
        WireField value;
        if (!readMapEntry(entry, &key, &value, &hasKey, parent))
            return false;
        WireReader r = WireReader::of(value);
        WireField f;
        int64_t id = 0;
        std::string_view name, displayName;
        std::vector<WireField> stats;
        while (r.next(&f)) {
            switch (f.number) {
            case 1:
                if (f.type != WireType::Varint)
                    return parent.fail("wrong wire type for XEventMetadata.id", f.at);
                id = f.asInt64();
                break;
            case 2:
            case 3:
            case 4:
            case 5:
                if (f.type != WireType::Len)
                    return parent.fail("wrong wire type for an XEventMetadata field", f.at);
                if (f.number == 2)
                    name = f.bytes();
                else if (f.number == 4)
                    displayName = f.bytes();
                else if (f.number == 5)
                    stats.push_back(f);
                break;
            case 6:
                if (!forEachVarint(f, [](uint64_t) {}))
                    return parent.fail("corrupt XEventMetadata.child_id", f.at);
                break;
            default:
                break;
            }
        }
        if (r.failed())
            return parent.fail(r);
        EventKind kind;
        kind.name = builder.intern(name);
        kind.displayName = builder.intern(displayName);
        kind.plane = tables.plane;
        ArgsArena::Writer args(builder.trace().metaArgs);
        SideValues side;
        if (!readStats(stats, tables.stats, builder, args, side, &file.recordsWarned, parent))
            return false;
        kind.stats = args.finish();
        for (int c = 0; c < kKindSideColumnCount; ++c) {
            if (side.mask & (1u << c))
                kind.side[size_t(c)] = side.value[c];
        }
        // A module's program id is its metadata id unless a `program_id` stat says otherwise
        // (FORMATS.md 1.9); the id is not kept anywhere else once the kind is interned.
        const size_t programId = size_t(SideColumn::ProgramId);
        if (builder.trace().planes[tables.plane].kind == PlaneKind::Metadata
            && kind.side[programId] == kNoValue)
            kind.side[programId] = id;
        tables.kinds.insert(hasKey ? key : id, builder.addKind(kind));
    }
    tables.kinds.seal();

    ArgsArena::Writer args(builder.trace().metaArgs);
    SideValues ignored;
    if (!readStats(spans.stats, tables.stats, builder, args, ignored, &file.recordsWarned, parent))
        return false;
    builder.trace().planes[tables.plane].stats = args.finish();

    if (spans.name == "Task Environment") {
        StatValue v;
        for (const WireField &field : spans.stats) {
            if (!decodeStat(field, &v, parent))
                return false;
            const StatInfo *info = tables.stats.find(v.metadataId);
            int64_t ns = 0;
            if (info && builder.strings().view(info->name) == "profile_start_time"
                && v.integer(&ns) && ns > 0)
                file.profileStartNs = uint64_t(ns);
        }
    }
    return true;
}

} // namespace

PlaneKind planeKindFor(std::string_view name)
{
    if (name.starts_with("/device:"))
        return PlaneKind::Device;
    if (name == "/host:metadata")
        return PlaneKind::Metadata;
    if (name.starts_with("/host:"))
        return PlaneKind::Host;
    return PlaneKind::Other;
}

Error corruptError(const std::string &path, const MappedFile &file, const WireReader &failed)
{
    std::string where;
    if (failed.errorAt() >= file.data() && failed.errorAt() <= file.end())
        where = " at byte " + std::to_string(failed.errorAt() - file.data());
    return fileError(path, std::string("truncated or corrupt XSpace protobuf (") + failed.error()
                               + where + ")");
}

std::optional<Error> indexXSpaceFile(FileIndex &file,
                                     std::vector<std::unique_ptr<PlaneTables>> &tables,
                                     TraceBuilder &builder)
{
    WireReader r(file.file.data(), file.file.end());
    WireField f;
    std::vector<WireField> planes;
    std::vector<std::string_view> hostnames, errors, warnings;
    while (r.next(&f)) {
        if (f.number > 4)
            continue;
        if (f.type != WireType::Len) {
            r.fail("wrong wire type for an XSpace field", f.at);
            break;
        }
        if (f.number == 1)
            planes.push_back(f);
        else
            (f.number == 2 ? errors : f.number == 3 ? warnings : hostnames).push_back(f.bytes());
    }
    if (r.failed())
        return corruptError(file.path, file.file, r);
    if (planes.empty()) {
        std::string problem = "holds no XSpace planes (not an XSpace profile, or an empty capture)";
        if (!errors.empty())
            problem += "; the profiler reported: " + std::string(errors.front());
        return fileError(file.path, problem);
    }

    file.host = !hostnames.empty() && !hostnames.front().empty()
                    ? std::string(hostnames.front())
                    : hostFromXSpacePath(file.path);
    for (std::string_view e : errors)
        builder.info().warn(file.host + ": the profiler reported an error: " + std::string(e));
    for (std::string_view w : warnings)
        builder.info().warn(file.host + ": the profiler reported: " + std::string(w));

    for (const WireField &planeField : planes) {
        PlaneSpans spans;
        if (!walkPlane(planeField, &spans, r))
            return corruptError(file.path, file.file, r);
        auto &t = tables.emplace_back(std::make_unique<PlaneTables>());
        if (!indexPlane(spans, file, *t, builder, r))
            return corruptError(file.path, file.file, r);
        for (size_t i = 0; i < spans.lineBegin.size(); ++i)
            file.lines.push_back({spans.lineBegin[i], spans.lineEnd[i], uint32_t(tables.size() - 1)});
    }
    return std::nullopt;
}

} // namespace tracedesk::core::xspace
