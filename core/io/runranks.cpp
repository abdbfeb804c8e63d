#include "core/io/runranks.h"

#include "core/io/decompress.h"
#include "core/io/rankname.h"

#include <simdjson.h>

#include <algorithm>
#include <optional>

namespace tracedesk::core {

namespace {

constexpr size_t kHeadBytes = 64 * 1024;

bool endsWithLower(std::string_view path, std::string_view suffix)
{
    if (path.size() < suffix.size())
        return false;
    for (size_t i = 0; i < suffix.size(); ++i) {
        const char c = path[path.size() - suffix.size() + i];
        if (char(std::tolower(static_cast<unsigned char>(c))) != suffix[i])
            return false;
    }
    return true;
}

// The end of the JSON object that opens at `from` (its closing brace + 1), or npos when the
// head ends first. Strings are skipped so braces inside them do not count.
size_t objectEnd(std::string_view text, size_t from)
{
    int depth = 0;
    bool inString = false;
    for (size_t i = from; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{') {
            ++depth;
        } else if (c == '}' && --depth == 0) {
            return i + 1;
        }
    }
    return std::string_view::npos;
}

// distributedInfo.rank from the head of a Kineto trace, when it is there.
std::optional<int64_t> distributedRank(const std::string &path)
{
    if (endsWithLower(path, ".xplane.pb"))
        return std::nullopt;
    const std::string head = readFileHead(path, kHeadBytes);
    const std::string_view key = "\"distributedInfo\"";
    for (size_t at = head.find(key); at != std::string::npos; at = head.find(key, at + 1)) {
        size_t i = at + key.size();
        while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i])))
            ++i;
        if (i >= head.size() || head[i] != ':')
            continue;
        ++i;
        while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i])))
            ++i;
        if (i >= head.size() || head[i] != '{')
            continue;
        const size_t end = objectEnd(head, i);
        if (end == std::string_view::npos)
            return std::nullopt;
        simdjson::dom::parser parser;
        const simdjson::padded_string object(head.data() + i, end - i);
        simdjson::dom::element root;
        if (parser.parse(object).get(root) != simdjson::SUCCESS)
            continue;
        int64_t rank = -1;
        if (root["rank"].get_int64().get(rank) == simdjson::SUCCESS && rank >= 0)
            return rank;
        double d = -1;
        if (root["rank"].get_double().get(d) == simdjson::SUCCESS && d >= 0 && d < 9e18)
            return int64_t(d);
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace

std::vector<RunFile> runFiles(const std::vector<std::string> &files)
{
    std::vector<RunFile> out;
    out.reserve(files.size());
    for (size_t i = 0; i < files.size(); ++i) {
        RunFile f;
        f.path = files[i];
        f.position = i;
        if (const auto rank = distributedRank(files[i])) {
            f.rank = *rank;
            f.rankSource = "distributedInfo";
        } else if (const auto named = rankFromFileName(files[i])) {
            f.rank = *named;
            f.rankSource = "file name";
        } else {
            f.rank = int64_t(i);
            f.rankSource = "order";
        }
        out.push_back(std::move(f));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const RunFile &a, const RunFile &b) { return a.rank < b.rank; });
    return out;
}

std::vector<int64_t> rankNumbers(const std::vector<RunFile> &files)
{
    std::vector<int64_t> ranks;
    for (const RunFile &f : files)
        ranks.push_back(f.rank);
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    return ranks;
}

Result<std::vector<RunFile>> selectRanks(const std::vector<RunFile> &files,
                                         const std::vector<int64_t> &ranks,
                                         const std::string &runName)
{
    const std::vector<int64_t> have = rankNumbers(files);
    std::vector<int64_t> missing;
    for (int64_t r : ranks) {
        if (!std::binary_search(have.begin(), have.end(), r))
            missing.push_back(r);
    }
    if (!missing.empty()) {
        std::sort(missing.begin(), missing.end());
        missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
        const std::string which = missing.size() == 1 ? "has no rank " : "has no ranks ";
        return fileError(runName, which + formatRankList(missing) + " (its ranks: "
                                      + formatRankList(have) + ")");
    }
    std::vector<RunFile> out;
    for (const RunFile &f : files) {
        if (std::find(ranks.begin(), ranks.end(), f.rank) != ranks.end())
            out.push_back(f);
    }
    return out;
}

Result<std::vector<int64_t>> parseRankList(std::string_view text)
{
    std::vector<int64_t> out;
    auto bad = [&](const std::string &why) {
        return Error{"rank list '" + std::string(text) + "': " + why, false};
    };
    auto number = [](std::string_view s, int64_t *value) {
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
            s.remove_prefix(1);
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
            s.remove_suffix(1);
        if (s.empty() || s.size() > 9)
            return false;
        int64_t v = 0;
        for (char c : s) {
            if (c < '0' || c > '9')
                return false;
            v = v * 10 + (c - '0');
        }
        *value = v;
        return true;
    };
    size_t from = 0;
    while (from <= text.size()) {
        const size_t comma = std::min(text.find(',', from), text.size());
        const std::string_view part = text.substr(from, comma - from);
        from = comma + 1;
        if (part.find_first_not_of(" \t") == std::string_view::npos)
            continue; // "0, 3," and empty pieces are harmless
        const size_t dash = part.find('-');
        int64_t first = 0, last = 0;
        if (dash == std::string_view::npos) {
            if (!number(part, &first))
                return bad("'" + std::string(part) + "' is not a rank number");
            last = first;
        } else if (!number(part.substr(0, dash), &first) || !number(part.substr(dash + 1), &last)) {
            return bad("'" + std::string(part) + "' is not a range like 0-3");
        } else if (last < first) {
            return bad("the range '" + std::string(part) + "' runs backwards");
        }
        if (uint64_t(last - first) >= kMaxListedRanks - out.size())
            return bad("more than " + std::to_string(kMaxListedRanks) + " ranks");
        for (int64_t r = first; r <= last; ++r)
            out.push_back(r);
    }
    if (out.empty())
        return bad("no rank given");
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string formatRankList(std::vector<int64_t> ranks)
{
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    std::string out;
    for (size_t i = 0; i < ranks.size();) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        if (!out.empty())
            out += ", ";
        if (j - i >= 2) {
            out += std::to_string(ranks[i]) + "-" + std::to_string(ranks[j]);
            i = j + 1;
        } else {
            out += std::to_string(ranks[i]);
            ++i;
        }
    }
    return out;
}

std::string shownRanksNote(const std::vector<int64_t> &shown, size_t runRankCount)
{
    return std::string(shown.size() == 1 ? "showing rank " : "showing ranks ")
           + formatRankList(shown) + " of " + std::to_string(runRankCount);
}

bool isShownRanksNote(std::string_view warning)
{
    return warning.starts_with("showing rank ") || warning.starts_with("showing ranks ");
}

} // namespace tracedesk::core
