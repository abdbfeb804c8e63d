#include "core/legacy/legacyhlotools.h"

#include "core/io/decompress.h"

#include <simdjson.h>

#include <filesystem>
#include <map>

namespace tracedesk::core::legacy {

using namespace analysis;

namespace {

constexpr uint64_t kMaxBytes = uint64_t(2) << 30;

// Column id -> cell of one DataTable row.
using Cells = std::map<std::string, simdjson::dom::element, std::less<>>;

std::optional<double> number(const Cells &c, std::string_view id)
{
    auto it = c.find(id);
    if (it == c.end())
        return std::nullopt;
    double d = 0;
    if (it->second.get(d) == simdjson::SUCCESS)
        return d;
    int64_t i = 0;
    if (it->second.get(i) == simdjson::SUCCESS)
        return double(i);
    return std::nullopt;
}

std::string text(const Cells &c, std::string_view id)
{
    auto it = c.find(id);
    std::string_view s;
    if (it != c.end() && it->second.get(s) == simdjson::SUCCESS)
        return std::string(s);
    if (auto d = number(c, id)) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", *d);
        return buf;
    }
    return {};
}

// Calls `row` with the cells of every row of `table`; false with `problem` set when the table
// is not a DataTable.
template<typename Row>
bool forEachRow(simdjson::dom::element table, std::string *problem, Row &&row)
{
    simdjson::dom::array cols, rows;
    if (table["cols"].get(cols) != simdjson::SUCCESS
        || table["rows"].get(rows) != simdjson::SUCCESS) {
        *problem = "is not a DataTable (no cols / rows)";
        return false;
    }
    std::vector<std::string> ids;
    for (simdjson::dom::element col : cols) {
        std::string_view id;
        ids.emplace_back(col["id"].get(id) == simdjson::SUCCESS ? id : std::string_view());
    }
    for (simdjson::dom::element r : rows) {
        simdjson::dom::array c;
        if (r["c"].get(c) != simdjson::SUCCESS) {
            *problem = "has a row without cells";
            return false;
        }
        Cells cells;
        size_t i = 0;
        for (simdjson::dom::element cell : c) {
            simdjson::dom::element v;
            if (i < ids.size() && cell.type() == simdjson::dom::element_type::OBJECT
                && cell["v"].get(v) == simdjson::SUCCESS)
                cells.emplace(ids[i], v);
            ++i;
        }
        row(cells);
    }
    return true;
}

Result<simdjson::dom::element> parse(const std::string &path, simdjson::dom::parser &parser,
                                     std::string *storage)
{
    auto contents = readWholeFile(path, nullptr, kMaxBytes);
    if (!contents)
        return contents.error();
    const PaddedBuffer &b = contents.value().buffer;
    storage->assign(b.data(), b.size());
    simdjson::dom::element doc;
    if (auto error = parser.parse(*storage).get(doc); error != simdjson::SUCCESS)
        return fileError(path, std::string("is not valid JSON (") + simdjson::error_message(error)
                                   + ")");
    return doc;
}

std::string fileName(const std::string &path)
{
    return std::filesystem::path(path).filename().string();
}

} // namespace

bool isHloStatsFileName(const std::string &path)
{
    const std::string n = fileName(path);
    return n.find("hlo_stats") != std::string::npos && n.find(".json") != std::string::npos;
}

bool isRooflineFileName(const std::string &path)
{
    const std::string n = fileName(path);
    return n.find("roofline_model") != std::string::npos && n.find(".json") != std::string::npos;
}

Result<HloStats> readHloStatsJsonFile(const std::string &path)
{
    simdjson::dom::parser parser;
    std::string storage;
    auto doc = parse(path, parser, &storage);
    if (!doc)
        return doc.error();
    HloStats out;
    out.source = path;
    std::string problem;
    const bool ok = forEachRow(doc.value(), &problem, [&](const Cells &c) {
        HloStatsRow r;
        r.rank = int(number(c, "rank").value_or(double(out.rows.size() + 1)));
        r.programId = text(c, "program_id");
        r.category = text(c, "category");
        r.hloOpName = text(c, "hlo_op_name");
        r.expression = text(c, "hlo_op_expression");
        r.frameworkOp = text(c, "tf_op_name");
        r.occurrences = int64_t(number(c, "occurrences").value_or(0));
        r.totalTimeUs = number(c, "total_time").value_or(0);
        r.avgTimeUs = number(c, "avg_time").value_or(0);
        r.totalSelfTimeUs = number(c, "total_self_time").value_or(0);
        r.avgSelfTimeUs = number(c, "avg_self_time").value_or(0);
        r.selfTimePercent = number(c, "total_self_time_percent").value_or(0);
        r.cumulativeSelfTimePercent = number(c, "cumulative_total_self_time_percent").value_or(0);
        r.gflopsPerSecond = number(c, "normalized_flop_rate");
        if (!r.gflopsPerSecond)
            r.gflopsPerSecond = number(c, "measured_flop_rate");
        r.modelGflopsPerSecond = number(c, "model_flop_rate");
        r.memoryBwGibPerSecond = number(c, "measured_memory_bw");
        r.hbmBwGibPerSecond = number(c, "hbm_bw");
        r.cmemReadBwGibPerSecond = number(c, "cmem_read_bw");
        r.cmemWriteBwGibPerSecond = number(c, "cmem_write_bw");
        r.operationalIntensity = number(c, "operational_intensity");
        r.boundBy = text(c, "bound_by");
        r.rematerialization = text(c, "hlo_rematerialization");
        r.outsideCompilation = text(c, "outside_compilation");
        r.autotuned = text(c, "autotuned");
        r.sourceInfo = text(c, "source_info");
        out.rows.push_back(std::move(r));
    });
    if (!ok)
        return fileError(path, "is not an HLO stats file: " + problem);
    return out;
}

Result<RooflineModel> readRooflineJsonFile(const std::string &path)
{
    simdjson::dom::parser parser;
    std::string storage;
    auto doc = parse(path, parser, &storage);
    if (!doc)
        return doc.error();
    simdjson::dom::element table = doc.value();
    simdjson::dom::array tables;
    if (table.get(tables) == simdjson::SUCCESS) {
        if (tables.size() == 0)
            return fileError(path, "is not a roofline model file: the list of tables is empty");
        table = tables.at(0).value();
    }
    RooflineModel out;
    out.source = path;
    simdjson::dom::object props;
    if (table["p"].get(props) == simdjson::SUCCESS) {
        auto prop = [&](std::string_view key) {
            std::string_view s;
            if (props[key].get(s) != simdjson::SUCCESS)
                return 0.0;
            try {
                return std::stod(std::string(s));
            } catch (...) {
                return 0.0;
            }
        };
        std::string_view type;
        if (props["device_type"].get(type) == simdjson::SUCCESS)
            out.deviceType = std::string(type);
        out.peakGigaFlopsPerSecond = prop("peak_flop_rate");
        const std::pair<const char *, const char *> memories[] = {
            {"HBM", "hbm"},              {"CMEM read", "cmem_read"}, {"CMEM write", "cmem_write"},
            {"VMEM read", "vmem_read"},  {"VMEM write", "vmem_write"}};
        for (const auto &[name, key] : memories) {
            const double bw = prop(std::string("peak_") + key + "_bw");
            if (bw > 0)
                out.rooflines.push_back({name, bw, prop(std::string(key) + "_ridge_point")});
        }
    }
    std::string problem;
    const bool ok = forEachRow(table, &problem, [&](const Cells &c) {
        RooflinePoint p;
        p.step = text(c, "step");
        p.category = text(c, "category");
        p.name = text(c, "operation");
        p.kind = p.category == "Program"
                     ? (p.step == "Total" ? RooflinePoint::Kind::Total : RooflinePoint::Kind::Step)
                     : RooflinePoint::Kind::Op;
        p.occurrences = int64_t(number(c, "occurrences").value_or(0));
        p.totalTimeUs = number(c, "total_time").value_or(0);
        p.totalSelfTimeUs = number(c, "total_self_time").value_or(0);
        // The file stores this share as a fraction.
        p.selfTimePercent = 100.0 * number(c, "total_self_time_percent").value_or(0);
        p.gflopsPerSecond = number(c, "measured_flop_rate");
        p.hbmBwGibPerSecond = number(c, "hbm_bw");
        p.operationalIntensity = number(c, "operational_intensity");
        p.boundBy = text(c, "bound_by");
        out.points.push_back(std::move(p));
    });
    if (!ok)
        return fileError(path, "is not a roofline model file: " + problem);
    return out;
}

} // namespace tracedesk::core::legacy
