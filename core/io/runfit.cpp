#include "core/io/runfit.h"

#include "core/base/asciilower.h"
#include "core/io/chromejsonreader.h"
#include "core/io/decompress.h"
#include "core/io/memoryguard.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace tracedesk::core {

namespace {

constexpr uint64_t kXSpaceBytesPerFileByte = 8;
constexpr uint64_t kUnknownExpansion = 10;
constexpr uint64_t kGzipSizeWrap = uint64_t(1) << 32;

bool isXSpacePath(const std::string &path)
{
    const std::string name = asciiLower(std::filesystem::path(path).filename().string());
    return name.size() > 10 && name.ends_with(".xplane.pb");
}

uint64_t saturatingAdd(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t saturatingMul(uint64_t a, uint64_t b)
{
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

// The JSON text a (possibly compressed) file expands to, as far as its headers tell.
uint64_t jsonBytes(const std::string &path, uint64_t fileBytes)
{
    FILE *in = std::fopen(path.c_str(), "rb");
    if (!in)
        return fileBytes;
    unsigned char head[32] = {};
    const size_t n = std::fread(head, 1, sizeof head, in);
    uint64_t out = fileBytes;
    switch (detectCompression(head, n)) {
    case Compression::None:
        break;
    case Compression::Zstd: {
        const uint64_t declared = declaredContentSize(head, n);
        out = declared != kUnknownSize ? declared : saturatingMul(fileBytes, kUnknownExpansion);
        break;
    }
    case Compression::Gzip: {
        unsigned char tail[4] = {};
        out = saturatingMul(fileBytes, kUnknownExpansion);
        if (fileBytes >= 18 && std::fseek(in, -4, SEEK_END) == 0
            && std::fread(tail, 1, 4, in) == 4) {
            uint64_t size = uint64_t(tail[0]) | uint64_t(tail[1]) << 8 | uint64_t(tail[2]) << 16
                            | uint64_t(tail[3]) << 24;
            // The field keeps the size modulo 4 GiB: text never compresses to more than it was.
            while (size < fileBytes)
                size += kGzipSizeWrap;
            out = size;
        }
        break;
    }
    }
    std::fclose(in);
    return out;
}

} // namespace

RankCost rankCost(const std::string &path)
{
    std::error_code ec;
    const uint64_t fileBytes = std::filesystem::file_size(path, ec);
    if (ec)
        return {};
    if (isXSpacePath(path))
        return {saturatingMul(fileBytes, kXSpaceBytesPerFileByte), 0};
    const uint64_t json = jsonBytes(path, fileBytes);
    return {saturatingMul(json / 4, 3), chromeJsonLoadEstimate(json)};
}

uint64_t runNeedBytes(const std::vector<RunFile> &files)
{
    uint64_t stores = 0, peak = 0;
    for (const RunFile &f : files) {
        const RankCost c = rankCost(f.path);
        stores = saturatingAdd(stores, c.storeBytes);
        peak = std::max(peak, c.loadPeakBytes);
    }
    return saturatingAdd(stores, peak);
}

RunFit fitRanks(const std::vector<RunFile> &files, uint64_t budget)
{
    RunFit fit;
    fit.budget = budget;
    std::vector<RankCost> costs;
    for (const RunFile &f : files)
        costs.push_back(rankCost(f.path));
    uint64_t stores = 0, peak = 0;
    bool full = false;
    for (size_t i = 0; i < files.size(); ++i) {
        // Files of one rank go in or out together.
        size_t j = i;
        uint64_t s = stores, p = peak;
        for (; j < files.size() && files[j].rank == files[i].rank; ++j) {
            s = saturatingAdd(s, costs[j].storeBytes);
            p = std::max(p, costs[j].loadPeakBytes);
        }
        const uint64_t need = saturatingAdd(s, p);
        const bool fits = budget == 0 || need <= budget || fit.ranks.empty();
        if (fits && !full) {
            fit.ranks.push_back(files[i].rank);
            fit.fitBytes = need;
        } else {
            full = true;
        }
        stores = s;
        peak = p;
        fit.runBytes = saturatingAdd(stores, peak);
        i = j - 1;
    }
    fit.partial = full;
    return fit;
}

std::string runFitNote(const RunFit &fit)
{
    return "the whole run needs about " + formatBytes(fit.runBytes) + " to open, more than the "
           + formatBytes(fit.budget) + " available: only rank" + (fit.ranks.size() == 1 ? " " : "s ")
           + formatRankList(fit.ranks) + " are opened, the distributed summary covers every rank";
}

bool isRunFitNote(std::string_view warning)
{
    return warning.starts_with("the whole run needs about ");
}

unsigned rankLoadWorkers(const std::vector<std::string> &files, uint64_t budget, unsigned cores)
{
    cores = std::max(cores, 1u);
    if (budget == 0)
        return cores;
    uint64_t stores = 0, peak = 0;
    for (const std::string &f : files) {
        const RankCost c = rankCost(f);
        stores = saturatingAdd(stores, c.storeBytes);
        peak = std::max(peak, c.loadPeakBytes);
    }
    if (peak == 0 || stores >= budget)
        return 1;
    return unsigned(std::clamp<uint64_t>((budget - stores) / peak, 1, cores));
}

} // namespace tracedesk::core
