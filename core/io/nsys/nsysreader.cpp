#include "core/io/nsys/nsysreader.h"

#include "core/io/memoryguard.h"
#include "core/io/nsys/nsysdatabase.h"
#include "core/io/nsys/nsysimporter.h"
#include "core/model/tracebuilder.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

namespace tracedesk::core {

namespace {

// What a row of an event table costs at the load's peak: its staged slice with side columns
// and args, its row in the store, its flow endpoints. An estimate, generous on purpose.
constexpr uint64_t kPeakBytesPerRow = 200;

// Rows of the tables that hold events (every table but the string, enum and target tables).
uint64_t eventRows(const nsys::NsysDatabase &db)
{
    uint64_t rows = 0;
    for (const std::string &table : db.tables()) {
        if (table.starts_with("sqlite_") || table.starts_with("ENUM_")
            || table.starts_with("TARGET_INFO") || table.starts_with("META_DATA")
            || table == "StringIds")
            continue;
        // A damaged file can claim any rowid: keep the estimate's product in range.
        rows = std::min<uint64_t>(rows + db.lastRowid(table), UINT64_MAX / (2 * kPeakBytesPerRow));
    }
    return rows;
}

Result<std::shared_ptr<Trace>> importDatabase(Result<nsys::NsysDatabase> opened,
                                              uint64_t bytes, LoadControl *control,
                                              const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;
    if (!opened)
        return opened.error();
    nsys::NsysDatabase &db = opened.value();
    if (!db.isNsysExport())
        return fileError(db.name(), "is an SQLite database but not an Nsight Systems export (it "
                                    "has none of the StringIds, META_DATA_EXPORT, "
                                    "CUPTI_ACTIVITY_KIND_* or NVTX_EVENTS tables)");
    // Refused before anything is staged when it would not fit, rather than ended by the OOM
    // killer half way through.
    const MemoryGuard guard(options.memoryLimitBytes);
    if (auto fits = guard.admit(db.name(), eventRows(db) * kPeakBytesPerRow + bytes,
                                kSuggestSmallerTrace);
        !fits)
        return fits.error();
    if (auto strings = db.loadStrings(); !strings)
        return strings.error();
    control->addTotal(bytes);

    TraceBuilder builder;
    nsys::NsysImporter importer(db, builder, *control);
    importer.setFileBytes(bytes);
    if (auto done = importer.run(); !done)
        return done.error();
    LoadInfo &info = builder.info();
    uint64_t clamped = 0;
    for (size_t t = 0; t < builder.trackCount(); ++t)
        clamped += builder.trackBuilder(uint32_t(t)).clampedTimes();
    if (clamped)
        info.warn(db.name() + ": " + std::to_string(clamped)
                  + " times lie more than 26 days from the session start (clamped)");
    info.format = "nsys-sqlite";
    info.sources = {db.name()};
    info.sourceBytes = bytes;
    std::shared_ptr<Trace> trace = builder.build(control);
    if (!trace)
        return Result<std::shared_ptr<Trace>>::cancelled();
    return trace;
}

} // namespace

Result<std::shared_ptr<Trace>> readNsysSqlite(const std::string &path, LoadControl *control,
                                              const LoadOptions &options)
{
    std::error_code ec;
    const uint64_t bytes = std::filesystem::file_size(path, ec);
    if (ec)
        return fileError(path, "cannot be read (" + ec.message() + ")");
    return importDatabase(nsys::NsysDatabase::openFile(path), bytes, control, options);
}

Result<std::shared_ptr<Trace>> readNsysSqliteBytes(const std::string &name, const void *data,
                                                   size_t size, LoadControl *control,
                                                   const LoadOptions &options)
{
    if (size < nsys::kSqliteMagic.size()
        || std::string_view(static_cast<const char *>(data), nsys::kSqliteMagic.size())
               != nsys::kSqliteMagic)
        return fileError(name, "is not an SQLite database (no \"SQLite format 3\" header)");
    return importDatabase(nsys::NsysDatabase::openBytes(name, data, size), size, control, options);
}

bool isNsysReportName(const std::string &fileName)
{
    std::string n = fileName;
    std::transform(n.begin(), n.end(), n.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    auto endsWith = [&](std::string_view s) {
        return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0;
    };
    return endsWith(".nsys-rep") || endsWith(".qdrep");
}

Error nsysReportAdvice(const std::string &path)
{
    return fileError(path, "is an Nsight Systems report, which only nsys can read; export it "
                           "first with `nsys export --type sqlite "
                           + std::filesystem::path(path).filename().string()
                           + "` and open the .sqlite file it writes");
}

} // namespace tracedesk::core
