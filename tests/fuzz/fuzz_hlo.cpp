// Fuzzes HLO module handling: parseHloProto() on the serialized xla.HloProto an XSpace embeds,
// then an HloModuleIndex over it and every lookup a kernel's hlo_op may trigger.

#include "core/hlo/hlomodules.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace tracedesk::core::hlo;
    if (size == 0)
        return 0;
    // The first byte is the program id, so lookups by id hit and miss.
    const uint64_t programId = data[0];
    const std::string bytes(reinterpret_cast<const char *>(data + 1), size - 1);
    auto parsed = parseHloProto(bytes, "fuzz module");
    if (!parsed && parsed.error().message.find("fuzz module") == std::string::npos)
        std::abort();

    HloModuleEntry entry;
    entry.name = parsed ? parsed.value().hlo_module().name() : std::string("fuzz");
    entry.programId = programId;
    entry.bytes = bytes;
    entry.source = "fuzz";
    std::vector<HloModuleEntry> entries{entry, entry};
    entries[1].programId = programId + 1;
    const HloModuleIndex index(std::move(entries));
    if (index.modules().size() + index.errors().size() != 2)
        std::abort();
    (void)index.byName(entry.name);
    (void)index.byName(entry.displayName());
    (void)index.byProgramId(programId);
    for (const auto &module : index.modules()) {
        for (const auto &[name, instruction] : module->instructions) {
            (void)index.instruction(module->entry.programId, name);
            (void)index.instruction(module->entry.programId, "outer::" + name);
            (void)index.instruction(module->entry.programId, name + "::");
            (void)instruction->opcode();
        }
    }
    (void)index.instruction(programId, "::");
    (void)index.instruction(programId, "");
    return 0;
}
