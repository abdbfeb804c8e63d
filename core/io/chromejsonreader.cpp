#include "core/io/chromejsonreader.h"

#include "core/io/chromejsonassembler.h"
#include "core/io/chromejsonparser.h"
#include "core/io/chromejsonscanner.h"
#include "core/io/decompress.h"
#include "core/io/memoryguard.h"
#include "core/model/tracebuilder.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

namespace tracedesk::core {

namespace {

// Events are parsed in batches of about this many bytes: large enough to amortise the parser's
// per-document cost, small enough that its index stays a few tens of megabytes.
constexpr size_t kBatchBytes = size_t(4) << 20;

// Peak process growth per byte of JSON text while it is loaded, the text itself excluded.
// Measured with `tracedesk-cli summary --no-cache` on `tracedesk-cli generate --format json`
// traces: 1M events (225 MB of JSON) peaked 304 MB above an empty load, 4M events (906 MB)
// 1213 MB, so about 0.35 bytes per JSON byte beyond the text; 1 leaves room for traces with
// richer args and for the allocator. Short events with a million distinct names cost far more
// (50 MB of JSON peaked 322 MB, 5.4 bytes per byte beyond the text); the growth check between
// batches stops those when they outgrow the budget.
constexpr uint64_t kPeakPerJsonByte = 1;
// The parser's copy of one batch plus its index, and the fixed cost of an empty store.
constexpr uint64_t kFixedOverhead = uint64_t(16) << 20;

// How much JSON text fits `budget`; UINT64_MAX when the budget is unknown (0).
uint64_t jsonBytesFor(uint64_t budget)
{
    if (budget == 0)
        return UINT64_MAX;
    return budget > kFixedOverhead ? (budget - kFixedOverhead) / (1 + kPeakPerJsonByte) : 0;
}

// The decompressed-size limit: the caller's, or lower when the memory guard allows less.
DecompressLimit decompressLimit(const MemoryGuard &guard, const LoadOptions &options)
{
    DecompressLimit limit{options.maxDecompressedBytes, {}};
    const uint64_t fits = jsonBytesFor(guard.budget());
    if (fits < limit.bytes) {
        limit.bytes = fits;
        limit.reason = "more than the memory available can hold (" + formatBytes(guard.budget())
                       + " allows about " + formatBytes(fits) + " of trace JSON); "
                       + std::string(kSuggestSmallerTrace);
    }
    return limit;
}

Result<bool> admitText(const MemoryGuard &guard, const std::string &name, uint64_t jsonBytes)
{
    return guard.admit(name, chromeJsonLoadEstimate(jsonBytes), kSuggestSmallerTrace);
}

// Parses the (decompressed) text into a trace; the guard's growth check runs between batches.
// The text, the parser and the assembler's lookup tables are freed before the builder's
// transient peak (sorting and splitting every track into rows).
Result<std::shared_ptr<Trace>> parseText(const std::string &name, FileContents contents,
                                         const MemoryGuard &guard, LoadControl *control)
{
    const uint64_t fileBytes = contents.fileBytes;
    control->addTotal(2 * fileBytes);
    const std::string_view text = contents.buffer.view();

    ChromeJsonScanner scanner(text);
    std::string problem;
    if (!scanner.start(&problem))
        return fileError(name, problem);

    TraceBuilder builder;
    auto assembler = std::make_unique<ChromeJsonAssembler>(builder);
    for (const auto &[key, value] : scanner.topLevel()) {
        if (key == "schemaVersion" || key == "deviceProperties" || key == "computeProperties")
            assembler->setKineto(true);
    }
    auto parser = std::make_unique<ChromeJsonParser>();
    std::vector<std::string_view> batch;
    uint64_t reported = 0;
    ChromeJsonScanner::Step step = ChromeJsonScanner::Step::Element;
    while (step == ChromeJsonScanner::Step::Element) {
        batch.clear();
        size_t batchBytes = 0;
        std::string_view element;
        while (batchBytes < kBatchBytes
               && (step = scanner.next(&element)) == ChromeJsonScanner::Step::Element) {
            batch.push_back(element);
            batchBytes += element.size();
        }
        parser->parseBatch(batch, *assembler);
        const uint64_t target =
            text.empty() ? fileBytes
                         : uint64_t(double(fileBytes) * double(scanner.position())
                                    / double(text.size()));
        if (target > reported) {
            control->addDone(target - reported);
            reported = target;
        }
        if (control->cancelRequested())
            return Result<std::shared_ptr<Trace>>::cancelled();
        if (auto fits = guard.checkGrowth(name, kSuggestSmallerTrace); !fits)
            return fits.error();
    }
    // Epoch times are made relative to their first whole microsecond; that origin (plus
    // Kineto's baseTimeNanoseconds, added with the run metadata) puts files on one clock.
    const int64_t originMicros = parser->originMicros();
    parser.reset();
    if (step == ChromeJsonScanner::Step::Truncated)
        assembler->truncated();
    if (reported < fileBytes)
        control->addDone(fileBytes - reported);
    scanner.finishTopLevel();
    if (!scanner.closed())
        assembler->unclosed();
    assembler->setTopLevel(scanner.topLevel());
    assembler->finish();
    assembler.reset();
    contents.buffer = PaddedBuffer();
    if (auto fits = guard.checkGrowth(name, kSuggestSmallerTrace); !fits)
        return fits.error();

    LoadInfo &info = builder.info();
    info.format = "chrome-json";
    int64_t originNs = 0;
    if (__builtin_mul_overflow(originMicros, int64_t(1000), &originNs)
        || __builtin_add_overflow(info.run.clockOriginNs, originNs, &info.run.clockOriginNs))
        info.run.clockOriginNs = 0;   // beyond any clock: the files' times stay as they are
    info.sources = {name};
    info.sourceBytes = fileBytes;

    std::shared_ptr<Trace> trace = builder.build(control);
    if (!trace)
        return Result<std::shared_ptr<Trace>>::cancelled();
    return trace;
}

Result<std::shared_ptr<Trace>> loadContents(const std::string &name,
                                            Result<FileContents> contents,
                                            const MemoryGuard &guard, LoadControl *control)
{
    if (!contents)
        return contents.error();
    // A plain file may have grown since it was admitted; a decompressed one is known only now.
    if (auto fits = admitText(guard, name, contents.value().buffer.size()); !fits)
        return fits.error();
    return parseText(name, std::move(contents).value(), guard, control);
}

} // namespace

uint64_t chromeJsonLoadEstimate(uint64_t jsonBytes)
{
    const uint64_t cap = (UINT64_MAX - kFixedOverhead) / (1 + kPeakPerJsonByte);
    return std::min(jsonBytes, cap) * (1 + kPeakPerJsonByte) + kFixedOverhead;
}

Result<std::shared_ptr<Trace>> readChromeJson(const std::string &path, LoadControl *control,
                                              const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;
    const MemoryGuard guard(options.memoryLimitBytes);

    // A plain file is checked against the guard before it is read into memory.
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) {
        const uint64_t size = std::filesystem::file_size(path, ec);
        char magic[4] = {};
        std::ifstream in(path, std::ios::binary);
        in.read(magic, sizeof magic);
        if (!ec && detectCompression(magic, size_t(in.gcount())) == Compression::None) {
            if (auto fits = admitText(guard, path, size); !fits)
                return fits.error();
        }
    }
    // Progress: the first half is reading/decompressing (compressed bytes), the second half is
    // parsing (position in the decompressed text, scaled to the same unit).
    return loadContents(path, readWholeFile(path, control, decompressLimit(guard, options)),
                        guard, control);
}

Result<std::shared_ptr<Trace>> readChromeJsonBytes(const std::string &name, const void *data,
                                                   size_t size, LoadControl *control,
                                                   const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;
    const MemoryGuard guard(options.memoryLimitBytes);
    if (detectCompression(data, size) == Compression::None) {
        if (auto fits = admitText(guard, name, size); !fits)
            return fits.error();
    }
    return loadContents(name,
                        readWholeBuffer(name, data, size, control, decompressLimit(guard, options)),
                        guard, control);
}

} // namespace tracedesk::core
