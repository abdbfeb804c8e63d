#include "core/io/chromejsonreader.h"

#include "core/io/chromejsonassembler.h"
#include "core/io/chromejsonparser.h"
#include "core/io/chromejsonscanner.h"
#include "core/io/decompress.h"
#include "core/model/tracebuilder.h"

#include <vector>

namespace tracedesk::core {

namespace {

// Events are parsed in batches of about this many bytes: large enough to amortise the parser's
// per-document cost, small enough that its index stays a few tens of megabytes.
constexpr size_t kBatchBytes = size_t(4) << 20;

} // namespace

Result<std::shared_ptr<Trace>> readChromeJson(const std::string &path, LoadControl *control,
                                              const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;

    // Progress: the first half is reading/decompressing (compressed bytes), the second half is
    // parsing (position in the decompressed text, scaled to the same unit).
    auto contents = readWholeFile(path, control, options.maxDecompressedBytes);
    if (!contents)
        return contents.error();
    const uint64_t fileBytes = contents.value().fileBytes;
    control->addTotal(2 * fileBytes);
    const std::string_view text = contents.value().buffer.view();

    ChromeJsonScanner scanner(text);
    std::string problem;
    if (!scanner.start(&problem))
        return fileError(path, problem);

    TraceBuilder builder;
    ChromeJsonAssembler assembler(builder);
    ChromeJsonParser parser;
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
        parser.parseBatch(batch, assembler);
        const uint64_t target = text.empty() ? fileBytes
                                             : uint64_t(double(fileBytes) * double(scanner.position())
                                                        / double(text.size()));
        if (target > reported) {
            control->addDone(target - reported);
            reported = target;
        }
        if (control->cancelRequested())
            return Result<std::shared_ptr<Trace>>::cancelled();
    }
    if (step == ChromeJsonScanner::Step::Truncated)
        assembler.truncated();
    if (reported < fileBytes)
        control->addDone(fileBytes - reported);
    scanner.finishTopLevel();
    assembler.finish();

    LoadInfo &info = builder.info();
    info.format = "chrome-json";
    info.sources = {path};
    info.sourceBytes = fileBytes;

    std::shared_ptr<Trace> trace = builder.build(control);
    if (!trace)
        return Result<std::shared_ptr<Trace>>::cancelled();
    return trace;
}

} // namespace tracedesk::core
