#pragma once

// HLO modules of a profile (FORMATS.md 1.9, 4.1): where they come from and how to look inside.
//
// XLA writes one event metadata per compiled module into the `/host:metadata` plane; its stat
// `Hlo Proto` holds the serialized `xla.HloProto` (module + buffer assignment). The program id
// is the metadata's `program_id` stat, else the metadata id (the XSpace reader keeps it in the
// kind's SideColumn::ProgramId). Older runs also have `<module>(<program_id>).hlo_proto.pb` files
// beside the xplane. XProf names a module "<module name>(<program id>)".
//
// Typical use, mapping device kernels to HLO instructions:
//
//     HloModuleIndex index(hloModulesForTrace(trace));
//     const int64_t program = trace.side(slice, SideColumn::ProgramId);     // kNoValue if absent
//     const std::string_view op = trace.string(StringId(trace.side(slice, SideColumn::HloOp)));
//     if (const xla::HloInstructionProto *inst = index.instruction(uint64_t(program), op))
//         ... inst->opcode(), inst->shape(), inst->metadata().op_name() ...
//
// Everything here is a pure function of its inputs; an HloModuleIndex is immutable after
// construction and may be shared across threads.

#include "core/base/result.h"
#include "core/model/trace.h"

#include "hlo.pb.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core::hlo {

struct HloModuleEntry
{
    std::string name;           // HloModuleProto.name (e.g. "jit_forward_3d_conv")
    uint64_t programId = 0;
    std::string bytes;          // the serialized xla.HloProto, exactly as stored
    std::string source;         // "xspace:<host>" or the sidecar file path

    // "<name>(<programId>)", the name XProf shows and selects modules by.
    std::string displayName() const;
    // "<name>(<programId>).hlo_proto.pb", XProf's cache file name.
    std::string fileName() const;
};

// Every module with an `Hlo Proto` stat in the trace's `/host:metadata` plane(s), in metadata
// order. Chrome JSON traces have none.
std::vector<HloModuleEntry> extractHloModules(const Trace &trace);

// `*.hlo_proto.pb` files in `dir` (name and program id from the file name
// "<name>(<id>).hlo_proto.pb"; the `NO_MODULE` marker is skipped), sorted by file name.
Result<std::vector<HloModuleEntry>> readHloModuleFiles(const std::string &dir);

// The trace's embedded modules, plus the sidecar files beside each of its sources that are not
// already embedded (same name and program id), sorted by display name. Unreadable sidecars are
// skipped: the embedded copies are the primary source.
std::vector<HloModuleEntry> hloModulesForTrace(const Trace &trace);

// Parses `bytes` as an xla.HloProto; the error names `what` (a display name or file).
Result<xla::HloProto> parseHloProto(std::string_view bytes, const std::string &what);
inline Result<xla::HloProto> parseHloProto(const HloModuleEntry &entry)
{
    return parseHloProto(entry.bytes, entry.displayName());
}

// Parsed modules with lookups by program id, by module name and by instruction name.
class HloModuleIndex
{
public:
    struct Module
    {
        HloModuleEntry entry;
        xla::HloProto proto;
        // Instruction name -> instruction, over all computations (fusion bodies included).
        std::map<std::string, const xla::HloInstructionProto *, std::less<>> instructions;
    };

    HloModuleIndex() = default;
    // Modules that fail to parse are left out and listed in errors().
    explicit HloModuleIndex(std::vector<HloModuleEntry> entries);
    HloModuleIndex(const HloModuleIndex &) = delete;
    HloModuleIndex &operator=(const HloModuleIndex &) = delete;

    const std::vector<std::unique_ptr<Module>> &modules() const { return m_modules; }
    const std::vector<std::string> &errors() const { return m_errors; }
    const Module *byProgramId(uint64_t programId) const;
    const Module *byName(std::string_view name) const;          // module name or display name
    // The instruction `name` of program `programId`. A kernel's hlo_op may be "outer::inner"
    // for nested names: the last component that resolves wins.
    const xla::HloInstructionProto *instruction(uint64_t programId, std::string_view name) const;

private:
    std::vector<std::unique_ptr<Module>> m_modules;
    std::map<uint64_t, const Module *> m_byProgram;
    std::vector<std::string> m_errors;
};

} // namespace tracedesk::core::hlo
