#include "core/generate/kinetomodel.h"

#include <algorithm>
#include <initializer_list>

namespace tracedesk::core::generator {

namespace {

constexpr int64_t kImage = 64; // square RGB images

std::string shape(std::initializer_list<int64_t> dims)
{
    std::string s = "[";
    for (const int64_t d : dims) {
        if (s.size() > 1)
            s += ',';
        s += std::to_string(d);
    }
    return s + "]";
}

std::string list(std::initializer_list<std::string> items)
{
    std::string s = "[";
    for (const std::string &i : items) {
        if (s.size() > 1)
            s += ',';
        s += i;
    }
    return s + "]";
}

} // namespace

int64_t ceilDiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

std::array<int64_t, 3> elementwiseGrid(int64_t elements)
{
    return {std::min<int64_t>(ceilDiv(elements, 512), int64_t(1) << 20), 1, 1};
}

KinetoModel makeKinetoModel(uint64_t seed)
{
    KinetoModel m;
    m.batch = int64_t(32) << (seed / 6 % 2);
    const int convs = 2 + int(seed % 3), linears = 2 + int(seed / 3 % 2);
    const int64_t channels[] = {3, 64, 128, 256, 256};
    int64_t size = kImage;
    for (int i = 0; i < convs; ++i) {
        ConvLayer c;
        c.in = channels[i];
        c.out = channels[i + 1];
        c.height = c.width = size;
        size /= 2; // stride 2
        c.outElements = m.batch * c.out * size * size;
        c.outBytes = c.outElements * 4;
        c.grid = {ceilDiv(m.batch * size * size, 128), ceilDiv(c.out, 128), 1};
        const std::string x = shape({m.batch, c.in, c.height, c.width});
        const std::string y = shape({m.batch, c.out, size, size});
        const std::string w = shape({c.out, c.in, 3, 3});
        c.convDims = list({x, w, shape({c.out}), "[]", "[]", "[]", "[]"});
        c.addDims = list({y, shape({1, c.out, 1, 1}), "[]"});
        c.reluDims = list({y});
        c.backwardDims = list({y, x, w, "[]", "[]", "[]", "[]", "[]", "[]", "[]", "[]"});
        m.parameters += c.out * c.in * 9 + c.out;
        m.convs.push_back(std::move(c));
    }

    // Features and a copy of them are concatenated, flattened and sent to the head GPU.
    const ConvLayer &last = m.convs.back();
    const std::string features = shape({m.batch, last.out, size, size});
    m.catDims = list({list({features, features}), "[]"});
    m.featureBytes = last.outBytes * 2;
    const int64_t flat = 2 * last.out * size * size;
    m.flatDims = list({shape({m.batch, 2 * last.out, size, size}), "[]", "[]"});
    m.peerDims = list({shape({m.batch, flat}), "[]", "[]", "[]", "[]", "[]"});

    int64_t in = flat;
    for (int j = 0; j < linears; ++j) {
        LinearLayer l;
        l.in = in;
        l.out = j + 1 == linears ? m.classes : 1024 >> j;
        const std::string x = shape({m.batch, l.in}), w = shape({l.out, l.in}),
                          y = shape({m.batch, l.out});
        l.linearDims = list({x, w, shape({l.out})});
        l.tDims = list({w});
        l.transposeDims = list({w, "[]", "[]"});
        l.addmmDims = list({shape({l.out}), x, shape({l.in, l.out}), "[]", "[]"});
        l.reluDims = list({y});
        l.mmDims = list({y, w});
        l.mmWeightDims = list({shape({l.out, m.batch}), x});
        l.sumDims = list({y, "[]", "[]", "[]"});
        m.parameters += l.in * l.out + l.out;
        in = l.out;
        m.linears.push_back(std::move(l));
    }

    const std::string logits = shape({m.batch, m.classes});
    m.lossDims = list({logits, shape({m.batch}), "[]", "[]", "[]", "[]"});
    m.softmaxDims = list({logits, "[]", "[]"});
    m.nllDims = list({logits, shape({m.batch}), "[]", "[]", "[]"});
    const std::string images = shape({m.batch, 3, kImage, kImage});
    m.inputBytes = m.batch * 3 * kImage * kImage * 4;
    m.stackDims = list({"[]", "[]"});
    m.toDims = list({images, "[]", "[]", "[]", "[]"});
    m.copyDims = list({images, images, "[]"});

    KinetoArgs collective;
    collective.string("Collective name", "allreduce")
        .string("dtype", "Float")
        .integer("In msg nelems", m.parameters)
        .integer("Out msg nelems", m.parameters)
        .integer("Group size", 1)
        .string("Process Group Name", "0")
        .string("Process Group Description", "default_pg")
        .string("Process Group Ranks", "[0]");
    m.collectiveKernelArgs = collective.text();
    collective.integer("Rank", 0);
    m.collectiveOpArgs = collective.text();
    return m;
}

std::string rankListJson(int worldSize)
{
    std::string text = "[";
    for (int r = 0; r < worldSize; ++r)
        text += (r ? "," : "") + std::to_string(r);
    return text + "]";
}

std::string kinetoHeader(int gpus, int64_t baseTimeNs, int rank, int worldSize)
{
    KinetoHeaderSpec spec;
    spec.gpus = gpus;
    spec.rank = rank;
    spec.worldSize = worldSize;
    return kinetoHeader(spec, baseTimeNs);
}

std::string kinetoHeader(const KinetoHeaderSpec &spec, int64_t baseTimeNs)
{
    const GpuModel &g = *spec.gpu;
    const int worldSize = spec.worldSize;
    std::string devices;
    for (int d = 0; d < spec.gpus; ++d) {
        KinetoArgs p;
        p.integer("id", d)
            .string("name", g.name)
            .integer("totalGlobalMem", int64_t(g.totalGlobalMem))
            .integer("computeMajor", g.computeMajor)
            .integer("computeMinor", g.computeMinor)
            .integer("maxThreadsPerBlock", g.maxThreadsPerBlock)
            .integer("maxThreadsPerMultiprocessor", g.maxThreadsPerMultiprocessor)
            .integer("regsPerBlock", g.regsPerBlock)
            .integer("warpSize", g.warpSize)
            .integer("sharedMemPerBlock", g.sharedMemPerBlock)
            .integer("numSms", g.numSms)
            .integer("regsPerMultiprocessor", g.regsPerMultiprocessor)
            .integer("sharedMemPerBlockOptin", g.sharedMemPerBlockOptin)
            .integer("sharedMemPerMultiprocessor", g.sharedMemPerMultiprocessor);
        devices += (d ? ",\n  {" : "\n  {") + p.text() + "}";
    }
    KinetoArgs group;
    group.string("pg_name", "0")
        .string("pg_desc", "default_pg")
        .string("backend_config", "cuda:nccl")
        .integer("pg_size", worldSize)
        .raw("ranks", rankListJson(worldSize));
    KinetoArgs distributed;
    distributed.string("backend", "nccl")
        .integer("rank", spec.rank)
        .integer("world_size", worldSize)
        .integer("pg_count", 1)
        .raw("pg_config", "[{" + group.text() + "}]")
        .string("nccl_version", spec.ncclVersion);
    KinetoArgs top;
    top.integer("schemaVersion", 1)
        .raw("deviceProperties", "[" + devices + "\n]")
        .raw("distributedInfo", "{" + distributed.text() + "}")
        .integer("cuda_runtime_version", spec.cudaRuntimeVersion)
        .integer("cuda_driver_version", spec.cudaDriverVersion)
        .integer("cupti_version", spec.cuptiVersion)
        .integer("record_shapes", 1)
        .integer("profile_memory", spec.profileMemory ? 1 : 0)
        .integer("with_stack", spec.withStack ? 1 : 0)
        .string("displayTimeUnit", "ms")
        .integer("baseTimeNanoseconds", baseTimeNs);
    // One member per line keeps the header readable with head(1).
    std::string text = top.text();
    for (const char *key :
         {"\"deviceProperties\"", "\"distributedInfo\"", "\"cuda_runtime_version\"",
          "\"displayTimeUnit\"", "\"baseTimeNanoseconds\""}) {
        const size_t at = text.find(key);
        if (at != std::string::npos)
            text.insert(at, "\n");
    }
    return text;
}

std::string kinetoTrailer(int64_t pid, int64_t stampNs, std::string_view worker)
{
    KinetoArgs t;
    t.string("traceName", "/tmp/tracedesk/" + std::string(worker) + "_" + std::to_string(pid) +
                              "." + std::to_string(stampNs) + ".pt.trace.json");
    return t.text();
}

} // namespace tracedesk::core::generator
