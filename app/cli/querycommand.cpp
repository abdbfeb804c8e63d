#include "commands.h"
#include "jsonout.h"
#include "options.h"

#include "core/io/traceloader.h"
#include "core/sql/sqlsession.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

namespace tracedesk::cli {

const char *const kQueryUsage =
    "  query FILE|DIR \"SQL\" [--csv|--json] [--run NAME] [--no-cache]\n"
    "  query --schema\n"
    "      SQL (SQLite) over the loaded trace: tables planes, tracks, slices, args, flows,\n"
    "      counters, steps, kernels, op_stats (--schema lists their columns; times are\n"
    "      picoseconds). Prints the rows of the last statement as a table, CSV (header\n"
    "      row first) or JSON ({\"columns\": [...], \"rows\": [[...], ...]}). Bad SQL exits 1\n"
    "      with SQLite's message.";

namespace {

using core::sql::SqlCell;

std::string csvField(const std::string &s)
{
    if (s.find_first_of(",\"\r\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

// Output formats, fed row by row so a result larger than memory still prints.
class Writer
{
public:
    virtual ~Writer() = default;
    virtual void columns(const std::vector<std::string> &names) = 0;
    virtual void row(const std::vector<SqlCell> &cells) = 0;
    virtual void finish(uint64_t rows, double seconds) = 0;
};

class CsvWriter : public Writer
{
public:
    void columns(const std::vector<std::string> &names) override
    {
        std::string out;
        for (size_t c = 0; c < names.size(); ++c)
            out += (c ? "," : "") + csvField(names[c]);
        std::printf("%s\n", out.c_str());
    }
    void row(const std::vector<SqlCell> &cells) override
    {
        std::string out;
        for (size_t c = 0; c < cells.size(); ++c)
            out += (c ? "," : "") + csvField(core::sql::cellText(cells[c]));
        out += '\n';
        std::fwrite(out.data(), 1, out.size(), stdout);
    }
    void finish(uint64_t, double) override {}
};

class JsonWriter : public Writer
{
public:
    void columns(const std::vector<std::string> &names) override
    {
        JsonOut json;
        json.beginArray();
        for (const std::string &c : names)
            json.value({}, c);
        json.endArray();
        std::printf("{\"columns\":%s,\"rows\":[", json.text().c_str());
    }
    void row(const std::vector<SqlCell> &cells) override
    {
        JsonOut json;
        json.beginArray();
        for (const SqlCell &cell : cells) {
            if (const auto *i = std::get_if<int64_t>(&cell))
                json.value({}, *i);
            else if (const auto *d = std::get_if<double>(&cell))
                json.value({}, *d);
            else if (const auto *s = std::get_if<std::string>(&cell))
                json.value({}, *s);
            else
                json.null({});
        }
        json.endArray();
        std::printf("%s%s", m_first ? "" : ",", json.text().c_str());
        m_first = false;
    }
    void finish(uint64_t, double) override { std::printf("]}\n"); }

private:
    bool m_first = true;
};

// Columns padded to the widest cell of the first kBuffered rows (capped), then the row count.
class TableWriter : public Writer
{
public:
    void columns(const std::vector<std::string> &names) override
    {
        m_names = names;
        m_width.assign(names.size(), 0);
        for (size_t c = 0; c < names.size(); ++c)
            m_width[c] = std::min(kMaxWidth, names[c].size());
    }
    void row(const std::vector<SqlCell> &cells) override
    {
        std::vector<std::string> texts;
        for (size_t c = 0; c < cells.size(); ++c) {
            std::string s = core::sql::cellText(cells[c]);
            std::replace(s.begin(), s.end(), '\n', ' ');
            if (s.size() > kMaxWidth)
                s = s.substr(0, kMaxWidth - 3) + "...";
            texts.push_back(std::move(s));
        }
        if (m_buffered.size() < kBuffered) {
            for (size_t c = 0; c < texts.size(); ++c)
                m_width[c] = std::max(m_width[c], texts[c].size());
            m_buffered.push_back(std::move(texts));
            return;
        }
        flushBuffered();
        line(texts);
    }
    void finish(uint64_t rows, double seconds) override
    {
        flushBuffered();
        std::printf("(%llu row%s, %.3f s)\n", static_cast<unsigned long long>(rows),
                    rows == 1 ? "" : "s", seconds);
    }

private:
    static constexpr size_t kMaxWidth = 60;
    static constexpr size_t kBuffered = 1000;

    void flushBuffered()
    {
        if (!m_headerDone) {
            line(m_names);
            m_headerDone = true;
        }
        for (const auto &r : m_buffered)
            line(r);
        m_buffered.clear();
    }
    void line(const std::vector<std::string> &values) const
    {
        std::string out;
        for (size_t c = 0; c < values.size(); ++c) {
            out += values[c].substr(0, kMaxWidth);
            if (c + 1 < values.size())
                out += std::string(m_width[c] - std::min(m_width[c], values[c].size()) + 2, ' ');
        }
        std::printf("%s\n", out.c_str());
    }

    std::vector<std::string> m_names;
    std::vector<size_t> m_width;
    std::vector<std::vector<std::string>> m_buffered;
    bool m_headerDone = false;
};

} // namespace

int runQuery(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    const std::vector<OptionSpec> specs = {{"csv", false}, {"json", false},     {"schema", false},
                                           {"run", true},  {"no-cache", false}, {"help", false}};
    if (!parseArgs(argc, argv, 2, specs, &args, &error))
        return fail("query: " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("Usage:\n%s\n", kQueryUsage);
        return kExitOk;
    }
    if (args.has("schema")) {
        std::printf("%s", core::sql::SqlSession::schemaText().c_str());
        return kExitOk;
    }
    if (args.positional.size() != 2)
        return fail("query: expected FILE|DIR and one SQL text (try query --help)", kExitUsage);
    if (args.has("csv") && args.has("json"))
        return fail("query: give --csv or --json, not both", kExitUsage);
    auto trace = core::loadTrace(args.positional[0], nullptr, loadOptionsFrom(args));
    if (!trace)
        return fail(trace.message());
    auto session = core::sql::SqlSession::open(trace.value());
    if (!session)
        return fail(session.message());
    std::unique_ptr<Writer> writer;
    if (args.has("csv"))
        writer = std::make_unique<CsvWriter>();
    else if (args.has("json"))
        writer = std::make_unique<JsonWriter>();
    else
        writer = std::make_unique<TableWriter>();
    const auto started = std::chrono::steady_clock::now();
    // Output starts only with the last statement's rows, so an error in an earlier statement
    // prints nothing; one in the middle of the rows ends the output where it failed.
    bool outputStarted = false;
    auto rows = session.value()->stream(
        args.positional[1], {},
        [&](const std::vector<std::string> &names) {
            writer->columns(names);
            outputStarted = true;
        },
        [&](std::vector<SqlCell> &&cells) {
            writer->row(cells);
            return true;
        });
    if (!rows) {
        std::fflush(stdout);
        return fail("query: " + rows.message());
    }
    if (!outputStarted)
        writer->columns({});
    writer->finish(
        rows.value(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    return kExitOk;
}

} // namespace tracedesk::cli
