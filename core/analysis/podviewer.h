#pragma once

// PodViewerData: XProf's pod viewer (FORMATS.md 2.15) — for every step common to all hosts, one
// record per worker (GPU/CPU host) or per TensorCore (TPU host) with the step time and its
// breakdown into the nine GenericEventType categories; or the same shape read from a legacy
// `*.pod_viewer.json` file (then with the eight TPU series of the 2020 UI).
//
// Several hosts are aligned as XProf's StepIntersection does (FORMATS.md 2.4 / 2.15): the host
// with the shortest total step span is the chief, every other host is shifted by the step offset
// whose steps overlap the chief's most in time, and only the chief steps covered by every host
// are kept, renumbered from 0. Hosts that leave the intersection empty are named in the
// diagnostics.
//
// Plain value; immutable once built and safe to share across threads. Invariants: every record
// has series.size() values; records of a step are sorted by core id; steps are in step order.

#include "core/analysis/analysiscache.h"
#include "core/analysis/steps.h"
#include "core/base/result.h"
#include "core/model/trace.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::analysis {

// A record's series values, held in the record: at most nine (the categories; the legacy UI
// has eight). A 100M-event profile has 640k records, and a vector each cost a third more.
class PodValues
{
public:
    static constexpr size_t kMax = 9;
    PodValues() = default;
    // The first kMax of `values`.
    explicit PodValues(const std::vector<double> &values) { assign(values.begin(), values.end()); }
    void assign(size_t n, double value);
    template<typename It> void assign(It first, It last)
    {
        m_size = 0;
        for (; first != last && m_size < kMax; ++first)
            m_values[m_size++] = *first;
    }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    double operator[](size_t i) const { return m_values[i]; }
    double &operator[](size_t i) { return m_values[i]; }
    const double *begin() const { return m_values.data(); }
    const double *end() const { return m_values.data() + m_size; }
    std::vector<double> toVector() const { return {begin(), end()}; }

private:
    std::array<double, kMax> m_values{};
    uint8_t m_size = 0;
};

// 128 bytes: the host and bottleneck names are indices into PodViewerData::texts, not a string
// each (a 100M-event profile has 640k records).
struct PodRecord
{
    uint32_t coreId = 0;            // host index x 1000 + local core id when several hosts
    int32_t chipId = 0;
    int32_t nodeId = 0;
    uint32_t host = 0;              // PodViewerData::texts index
    uint32_t bottleneck = 0;        // PodViewerData::texts index
    int64_t stepNum = 0;
    int64_t hostStep = 0;           // the host's own step number (group id) before renumbering
    double totalUs = 0;
    PodValues valuesUs;             // one per PodViewerData::series
};

struct PodStep
{
    int64_t stepNum = 0;
    std::vector<PodRecord> records;
};

// How one host's steps were aligned to the chief's (indices into each host's step list).
struct PodHostAlignment
{
    std::string host;
    bool coordinator = false;       // no device while another host has one: not merged
    bool chief = false;
    int stepCount = 0;
    TimePs totalPs = 0;             // last end - first begin over non-empty steps
    int beginHost = 0;
    int beginChief = 0;
    int count = 0;
};

struct PodViewerData
{
    std::string source;             // file read, for legacy data
    std::string deviceType;         // "GPU", "CPU", "TPU" or the legacy tpuType
    bool legacy = false;            // eight legacy TPU series instead of the nine categories
    bool tpu = false;               // columns labelled (chip,node) rather than host name
    std::vector<std::string> series;
    std::vector<PodStep> steps;
    std::vector<PodHostAlignment> hosts;
    std::vector<std::string> texts{std::string()}; // records' host and bottleneck names
    int chief = -1;                 // index into hosts
    bool emptyIntersection = false;
    Diagnostics diagnostics;

    const std::string &hostOf(const PodRecord &r) const { return texts[r.host]; }
    const std::string &bottleneckOf(const PodRecord &r) const { return texts[r.bottleneck]; }
    // The index of `text` in texts, added when new (for builders; texts are few).
    uint32_t textIndex(std::string_view text);
};

// GenericEventType names, id 1..9 at index 0..8.
extern const char *const kPodCategoryNames[9];
// The 2020 UI's series for legacy records.
extern const char *const kLegacyPodSeriesNames[8];

// Categories of one step (FORMATS.md 2.15 table), in microseconds, and XProf's bottleneck rule.
std::vector<double> podCategoriesUs(const StepInfo &step);
std::string podBottleneck(const StepInfo &step);

PodViewerData computePodViewer(const Trace &trace);
std::shared_ptr<const PodViewerData> podViewer(AnalysisCache &cache);

// Reads a legacy or current `*.pod_viewer.json`; errors name the file and the problem.
Result<PodViewerData> readPodViewerJsonFile(const std::string &path);

// Column label as XProf's UI writes it: "(chip,node)" for TPU, else the host name.
std::string podColumnLabel(const PodViewerData &data, const PodRecord &record);

namespace detail {
struct StepSpan
{
    TimePs begin = 0;
    TimePs end = 0;
    bool empty() const { return begin >= end; }
};
struct StepAlignment
{
    int beginHost = 0;
    int beginChief = 0;
    int count = 0;
};
// XProf's StepIntersection alignment of one host's steps to the chief's.
StepAlignment alignToChief(const std::vector<StepSpan> &chief, const std::vector<StepSpan> &host);
} // namespace detail

} // namespace tracedesk::core::analysis
