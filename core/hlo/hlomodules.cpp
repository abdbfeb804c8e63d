#include "core/hlo/hlomodules.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace tracedesk::core::hlo {

namespace {

constexpr std::string_view kHloProtoStat = "Hlo Proto";
constexpr std::string_view kHloFileSuffix = ".hlo_proto.pb";

// "name(123)" -> name, 123. False when there is no trailing "(digits)".
bool splitDisplayName(std::string_view text, std::string_view *name, uint64_t *id)
{
    if (text.size() < 3 || text.back() != ')')
        return false;
    const size_t open = text.rfind('(');
    if (open == std::string_view::npos || open + 2 > text.size() - 1)
        return false;
    const std::string_view digits = text.substr(open + 1, text.size() - open - 2);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *id);
    if (ec != std::errc() || end != digits.data() + digits.size())
        return false;
    *name = text.substr(0, open);
    return true;
}

// The module name recorded inside the proto (empty when the bytes do not parse).
std::string moduleNameOf(std::string_view bytes)
{
    xla::HloProto proto;
    if (proto.ParseFromArray(bytes.data(), int(bytes.size())))
        return proto.hlo_module().name();
    return {};
}

} // namespace

std::string HloModuleEntry::displayName() const
{
    return name + "(" + std::to_string(programId) + ")";
}

std::string HloModuleEntry::fileName() const
{
    return displayName() + std::string(kHloFileSuffix);
}

std::vector<HloModuleEntry> extractHloModules(const Trace &trace)
{
    std::vector<HloModuleEntry> out;
    StringId statKey = kEmptyString;
    if (!trace.strings.find(kHloProtoStat, &statKey))
        return out;
    for (const EventKind &kind : trace.kinds) {
        const Plane &plane = trace.planes[kind.plane];
        if (plane.kind != PlaneKind::Metadata)
            continue;
        ArgValue v;
        if (!trace.metaArgs.find(kind.stats, statKey, &v)
            || (v.type != ArgType::Bytes && v.type != ArgType::String))
            continue;
        HloModuleEntry e;
        e.bytes = std::string(v.s);
        const std::string_view metaName = trace.string(kind.name);
        std::string_view stripped = metaName;
        uint64_t nameId = 0;
        const bool hasSuffix = splitDisplayName(metaName, &stripped, &nameId);
        const int64_t program = kind.side[size_t(SideColumn::ProgramId)];
        e.programId = program != kNoValue ? uint64_t(program) : hasSuffix ? nameId : 0;
        e.name = moduleNameOf(e.bytes);
        if (e.name.empty())
            e.name = std::string(stripped);
        e.source = "xspace:" + std::string(trace.string(plane.host));
        out.push_back(std::move(e));
    }
    return out;
}

Result<std::vector<HloModuleEntry>> readHloModuleFiles(const std::string &dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec)
        return fileError(dir, "cannot list the folder (" + ec.message() + ")");
    std::vector<fs::path> files;
    for (const fs::directory_entry &d : it) {
        const std::string file = d.path().filename().string();
        if (file.size() > kHloFileSuffix.size() && file.ends_with(kHloFileSuffix)
            && d.is_regular_file(ec))
            files.push_back(d.path());
    }
    std::sort(files.begin(), files.end());
    std::vector<HloModuleEntry> out;
    for (const fs::path &p : files) {
        const std::string file = p.filename().string();
        const std::string_view stem =
            std::string_view(file).substr(0, file.size() - kHloFileSuffix.size());
        HloModuleEntry e;
        std::string_view name = stem;
        if (!splitDisplayName(stem, &name, &e.programId))
            continue;   // NO_MODULE and foreign names
        std::ifstream in(p, std::ios::binary);
        std::ostringstream bytes;
        bytes << in.rdbuf();
        if (!in && !in.eof())
            return fileError(p.string(), "cannot read the file");
        e.name = std::string(name);
        e.bytes = std::move(bytes).str();
        e.source = p.string();
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<HloModuleEntry> hloModulesForTrace(const Trace &trace)
{
    std::vector<HloModuleEntry> out = extractHloModules(trace);
    std::set<std::pair<std::string, uint64_t>> seen;
    for (const HloModuleEntry &e : out)
        seen.insert({e.name, e.programId});
    std::set<std::string> dirs;
    for (const std::string &src : trace.info.sources)
        dirs.insert(std::filesystem::path(src).parent_path().string());
    for (const std::string &dir : dirs) {
        auto files = readHloModuleFiles(dir.empty() ? std::string(".") : dir);
        if (!files.ok())
            continue;
        for (HloModuleEntry &e : files.value()) {
            if (seen.insert({e.name, e.programId}).second)
                out.push_back(std::move(e));
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const HloModuleEntry &a, const HloModuleEntry &b) {
        return a.displayName() < b.displayName();
    });
    return out;
}

Result<xla::HloProto> parseHloProto(std::string_view bytes, const std::string &what)
{
    xla::HloProto proto;
    if (bytes.size() > size_t(INT32_MAX) || !proto.ParseFromArray(bytes.data(), int(bytes.size())))
        return fileError(what, "not a valid xla.HloProto (truncated or corrupt)");
    return proto;
}

HloModuleIndex::HloModuleIndex(std::vector<HloModuleEntry> entries)
{
    for (HloModuleEntry &e : entries) {
        auto parsed = parseHloProto(e);
        if (!parsed.ok()) {
            m_errors.push_back(parsed.message());
            continue;
        }
        auto m = std::make_unique<Module>();
        m->entry = std::move(e);
        m->proto = std::move(parsed).value();
        for (const auto &comp : m->proto.hlo_module().computations()) {
            for (const auto &inst : comp.instructions())
                m->instructions.emplace(inst.name(), &inst);
        }
        m_byProgram.emplace(m->entry.programId, m.get());
        m_modules.push_back(std::move(m));
    }
}

const HloModuleIndex::Module *HloModuleIndex::byProgramId(uint64_t programId) const
{
    auto it = m_byProgram.find(programId);
    return it == m_byProgram.end() ? nullptr : it->second;
}

const HloModuleIndex::Module *HloModuleIndex::byName(std::string_view name) const
{
    for (const auto &m : m_modules) {
        if (m->entry.name == name || m->entry.displayName() == name)
            return m.get();
    }
    return nullptr;
}

const xla::HloInstructionProto *HloModuleIndex::instruction(uint64_t programId,
                                                            std::string_view name) const
{
    const Module *m = byProgramId(programId);
    if (!m)
        return nullptr;
    const xla::HloInstructionProto *found = nullptr;
    size_t from = 0;
    while (from <= name.size()) {
        const size_t sep = name.find("::", from);
        const std::string_view part = name.substr(from, sep == std::string_view::npos
                                                             ? std::string_view::npos
                                                             : sep - from);
        auto it = m->instructions.find(part);
        if (it != m->instructions.end())
            found = it->second;
        if (sep == std::string_view::npos)
            break;
        from = sep + 2;
    }
    return found;
}

} // namespace tracedesk::core::hlo
