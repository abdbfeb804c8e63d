// The rocprofv3 JSON results document read whole (plain, gzip or zstd) and parsed with simdjson;
// DocumentReader (rocprofdocument.h) maps it.

#include "core/io/rocprof/rocprofdocument.h"
#include "core/io/rocprof/rocprofreader.h"

#include "core/io/decompress.h"

#include <cctype>
#include <filesystem>

namespace tracedesk::core {

namespace {

using namespace rocprof;
using namespace rocprof::json;

constexpr std::string_view kRoot = "rocprofiler-sdk-tool";

Result<std::shared_ptr<Trace>> importDocument(const std::string &name,
                                              Result<FileContents> contents,
                                              LoadControl *control)
{
    if (!contents)
        return contents.error();
    const PaddedBuffer &text = contents.value().buffer;
    if (text.empty())
        return fileError(name, "is empty");
    simdjson::dom::parser parser;
    element root;
    if (auto error = parser.parse(text.data(), text.size(), false).get(root);
        error != simdjson::SUCCESS)
        return fileError(name, std::string("is not valid JSON, or is cut short (")
                                   + simdjson::error_message(error) + ")");
    object top;
    array processes;
    if (root.get_object().get(top) != simdjson::SUCCESS
        || top[kRoot].get_array().get(processes) != simdjson::SUCCESS)
        return fileError(name, "is not a rocprofv3 results document (it has no \""
                                   + std::string(kRoot) + "\" array)");
    TraceBuilder builder;
    DocumentReader reader(name, builder, *control);
    if (auto done = reader.read(processes); !done)
        return done.error();
    LoadInfo &info = builder.info();
    info.format = "rocprof-json";
    info.sources = {name};
    info.sourceBytes = contents.value().fileBytes;
    std::shared_ptr<Trace> trace = builder.build(control);
    if (!trace)
        return Result<std::shared_ptr<Trace>>::cancelled();
    return trace;
}

} // namespace

Result<std::shared_ptr<Trace>> readRocprofJson(const std::string &path, LoadControl *control,
                                               const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;
    std::error_code ec;
    const uint64_t bytes = std::filesystem::file_size(path, ec);
    if (ec)
        return fileError(path, "cannot be read (" + ec.message() + ")");
    control->addTotal(bytes);
    return importDocument(path, readWholeFile(path, control, options.maxDecompressedBytes),
                          control);
}

Result<std::shared_ptr<Trace>> readRocprofJsonBytes(const std::string &name, const void *data,
                                                    size_t size, LoadControl *control,
                                                    const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;
    control->addTotal(size);
    return importDocument(
        name,
        readWholeBuffer(name, data, size, control, DecompressLimit{options.maxDecompressedBytes, {}}),
        control);
}

bool looksLikeRocprofJson(std::string_view head)
{
    // The document's one key comes first: `{"rocprofiler-sdk-tool": [`, maybe after whitespace.
    size_t i = 0;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i])))
        ++i;
    if (i >= head.size() || head[i] != '{')
        return false;
    ++i;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i])))
        ++i;
    return head.substr(i, kRoot.size() + 2) == "\"" + std::string(kRoot) + "\"";
}

} // namespace tracedesk::core
