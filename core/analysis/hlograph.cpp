// The HLO neighbourhood of an op; rules in hlograph.h.

#include "core/analysis/hlograph.h"

#include "core/analysis/hloopinfo.h"

#include <deque>
#include <unordered_map>

namespace tracedesk::core::analysis {

namespace {

using Instruction = xla::HloInstructionProto;

const xla::HloComputationProto *computationOf(const xla::HloModuleProto &module,
                                               std::string_view op, const Instruction **found)
{
    for (const auto &c : module.computations()) {
        for (const auto &i : c.instructions()) {
            if (i.name() == op) {
                *found = &i;
                return &c;
            }
        }
    }
    return nullptr;
}

const xla::HloComputationProto *computationById(const xla::HloModuleProto &module, int64_t id)
{
    for (const auto &c : module.computations()) {
        if (c.id() == id)
            return &c;
    }
    return nullptr;
}

HloGraphNode nodeOf(const Instruction &inst, int distance)
{
    HloGraphNode n;
    n.name = inst.name();
    n.opcode = inst.opcode();
    n.shape = hloShapeText(inst.shape());
    n.category = hloCategory(inst);
    n.source = hloSourceLine(inst.metadata());
    n.distance = distance;
    n.isFusion = inst.opcode() == "fusion";
    return n;
}

// Adds the instructions of `c` reachable within `depth` edges of `centre` (operands and users),
// nearest first, and the edges between them. Returns the node index of each instruction id.
std::unordered_map<int64_t, size_t> addNeighbourhood(const xla::HloComputationProto &c,
                                                     const Instruction &centre, int depth,
                                                     size_t maxNodes, HloGraph &out)
{
    std::unordered_map<int64_t, const Instruction *> byId;
    std::unordered_map<int64_t, std::vector<int64_t>> users;
    for (const auto &i : c.instructions()) {
        byId.emplace(i.id(), &i);
        for (int64_t operand : i.operand_ids())
            users[operand].push_back(i.id());
    }
    std::unordered_map<int64_t, size_t> index;
    std::deque<std::pair<int64_t, int>> queue{{centre.id(), 0}};
    index[centre.id()] = out.nodes.size();
    out.nodes.push_back(nodeOf(centre, 0));
    out.nodes.back().isCentre = true;
    while (!queue.empty()) {
        const auto [id, distance] = queue.front();
        queue.pop_front();
        if (distance >= depth)
            continue;
        const Instruction *inst = byId.at(id);
        std::vector<int64_t> next(inst->operand_ids().begin(), inst->operand_ids().end());
        if (auto u = users.find(id); u != users.end())
            next.insert(next.end(), u->second.begin(), u->second.end());
        for (int64_t n : next) {
            if (index.count(n) || !byId.count(n))
                continue;
            if (out.nodes.size() >= maxNodes) {
                out.truncated = true;
                continue;
            }
            index[n] = out.nodes.size();
            out.nodes.push_back(nodeOf(*byId.at(n), distance + 1));
            queue.emplace_back(n, distance + 1);
        }
    }
    for (const auto &[id, to] : index) {
        for (int64_t operand : byId.at(id)->operand_ids()) {
            if (auto from = index.find(operand); from != index.end())
                out.edges.push_back({from->second, to, out.nodes[from->second].shape});
        }
    }
    return index;
}

} // namespace

Result<HloGraph> hloNeighbourhood(const hlo::HloModuleIndex &index, uint64_t programId,
                                  std::string_view op, const HloGraphOptions &options)
{
    if (index.modules().empty())
        return Error{"the profile holds no HLO modules (no `Hlo Proto` in /host:metadata and no "
                     ".hlo_proto.pb files beside it)"};
    const hlo::HloModuleIndex::Module *module = nullptr;
    if (programId != 0) {
        module = index.byProgramId(programId);
        if (!module)
            return Error{"the profile has no HLO module for program " + std::to_string(programId)};
    } else {
        for (const auto &m : index.modules()) {
            if (m->instructions.count(op)) {
                module = m.get();
                break;
            }
        }
        if (!module)
            return Error{"no HLO module of the profile has an op named '" + std::string(op) + "'"};
    }
    const xla::HloModuleProto &proto = module->proto.hlo_module();
    const Instruction *centre = nullptr;
    const xla::HloComputationProto *computation = computationOf(proto, op, &centre);
    if (!computation)
        return Error{"HLO module " + module->entry.displayName() + " has no op named '"
                     + std::string(op) + "'"};

    HloGraph out;
    out.module = module->entry.displayName();
    out.computation = computation->name();
    const size_t maxNodes = size_t(std::max(1, options.maxNodes));
    addNeighbourhood(*computation, *centre, std::max(0, options.depth), maxNodes, out);
    if (!options.expandFusions)
        return out;
    // Each fusion in view shows what it fused, wired as in its fused computation.
    const size_t outer = out.nodes.size();
    for (size_t f = 0; f < outer; ++f) {
        if (!out.nodes[f].isFusion)
            continue;
        const auto it = module->instructions.find(out.nodes[f].name);
        if (it == module->instructions.end() || it->second->called_computation_ids().empty())
            continue;
        const xla::HloComputationProto *body =
            computationById(proto, it->second->called_computation_ids(0));
        if (!body)
            continue;
        std::unordered_map<int64_t, size_t> member;
        for (const auto &i : body->instructions()) {
            if (out.nodes.size() >= maxNodes + outer) {
                out.truncated = true;
                break;
            }
            member[i.id()] = out.nodes.size();
            out.nodes.push_back(nodeOf(i, out.nodes[f].distance));
            out.nodes.back().fusion = out.nodes[f].name;
        }
        for (const auto &i : body->instructions()) {
            const auto to = member.find(i.id());
            if (to == member.end())
                continue;
            for (int64_t operand : i.operand_ids()) {
                if (auto from = member.find(operand); from != member.end())
                    out.edges.push_back({from->second, to->second, out.nodes[from->second].shape});
            }
        }
    }
    return out;
}

std::shared_ptr<const TraceHloModules> traceHloModules(AnalysisCache &cache)
{
    return cache.get<TraceHloModules>([](AnalysisCache &c) {
        return TraceHloModules{
            std::make_shared<const hlo::HloModuleIndex>(hlo::hloModulesForTrace(c.trace()))};
    });
}

} // namespace tracedesk::core::analysis
