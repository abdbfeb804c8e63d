#include "views/panels/gputime/gputimepanel.h"

#include "core/analysis/framework.h"
#include "core/analysis/gputime/gputime.h"
#include "core/analysis/pytorch/kinetoindex.h"
#include "core/io/memoryguard.h"
#include "views/common/namecolumn.h"
#include "views/panels/gputime/criticalpathview.h"
#include "views/panels/common/rowtable.h"
#include "views/panels/overview/analysistablemodel.h"
#include "views/panels/overview/overviewpanel.h"
#include "views/panels/pytorch/frameworkpages.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace tracedesk::views {

namespace {

using namespace core::analysis::gputime;

// A card with an explanatory line above its table (sortable on raw values, whole rows).
QTableView *addTable(QVBoxLayout *layout, QWidget *parent, const QString &title,
                     AnalysisTableModel *model, const QString &note = {},
                     QWidget **cardOut = nullptr, QLabel **noteOut = nullptr)
{
    auto *content = new QWidget(parent);
    auto *v = new QVBoxLayout(content);
    v->setContentsMargins(0, 0, 0, 0);
    if (!note.isEmpty()) {
        auto *label = new QLabel(note, content);
        label->setWordWrap(true);
        v->addWidget(label);
        if (noteOut)
            *noteOut = label;
    }
    QTableView *view = makeRowTable(
        makeTableProxy(model, AnalysisTableModel::kSortRole, -1, content), content);
    view->horizontalHeader()->setStretchLastSection(true);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    v->addWidget(view);
    QWidget *card = makeCard(title, content, parent);
    layout->addWidget(card);
    if (cardOut)
        *cardOut = card;
    return view;
}

// A PyTorch trace draws each stream's queue on the timeline; an XSpace does not (its many
// launches would double the store), so only the first says where to look.
bool hasLaunchQueueTracks(const core::Trace &trace)
{
    return std::any_of(trace.tracks.begin(), trace.tracks.end(), [&](const core::Track &t) {
        return t.type == core::TrackType::Counter
               && trace.string(t.name).ends_with(" launch queue");
    });
}

QString queueNote(bool onTimeline)
{
    const QString over = onTimeline ? GpuTimePanel::tr(" (over time: the stream's \"launch queue\" "
                                                        "counter track on the timeline)")
                                    : QString();
    return GpuTimePanel::tr("Launches queued on a stream and not yet started%1; blocked is the "
                            "time at %2 queued launches, where CUDA makes the next launch wait.")
        .arg(over)
        .arg(kMaxLaunchQueue);
}

AnalysisTableModel *tableModel(QStringList headers, std::initializer_list<std::pair<int, int>> decimals,
                               QObject *parent)
{
    auto *model = new AnalysisTableModel(std::move(headers), parent);
    for (const auto &[column, places] : decimals)
        model->setDecimals(column, places);
    return model;
}

// As tall as its rows (up to a dozen, then it scrolls): a one-row table is not a tall empty box.
void fitRows(QTableView *view)
{
    const int rows = std::clamp(view->model()->rowCount(), 1, 12);
    view->setFixedHeight(view->horizontalHeader()->height()
                         + rows * view->verticalHeader()->defaultSectionSize()
                         + 2 * view->frameWidth() + view->horizontalScrollBar()->sizeHint().height());
}

// HTA's span runs from a device's first to its last activity. A CUDA-graph or serving trace
// can spend much of the profile before the first kernel (the host preparing the graph); the
// breakdown leaves that out, so the status says it rather than let "idle 0.2 %" stand alone.
QString outsideSpanText(const GpuTimeReport &r, const core::Trace &trace)
{
    double active = 0;
    for (const TemporalBreakdown &t : r.temporal)
        active = std::max(active, t.totalUs);
    const double profile = double(trace.end - trace.begin) / 1e6;
    const double outside = profile - active;
    if (profile <= 0 || outside < 0.05 * profile)
        return {};
    return GpuTimePanel::tr(" Outside that span the GPU had no work for another %1 ms of the "
                            "%2 ms profile (before its first or after its last activity), which "
                            "the breakdown leaves out.")
        .arg(outside / 1000.0, 0, 'f', 2)
        .arg(profile / 1000.0, 0, 'f', 2);
}

QString text(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

} // namespace

GpuTimePanel::GpuTimePanel(QWidget *parent) : QWidget(parent)
{
    // The panel's page for traces with GPU work (with the rank chooser of a merged run above
    // it), and a line saying why for the others.
    auto *content = new QWidget(this);
    auto *outer = new QVBoxLayout(content);
    outer->setContentsMargins(0, 0, 0, 0);
    m_status = new QLabel(tr("No trace loaded."), content);
    m_status->setWordWrap(true);
    m_status->setContentsMargins(6, 4, 6, 0);
    outer->addWidget(m_status);
    m_computeLarge = new QPushButton(tr("Compute GPU time"), content);
    m_computeLarge->hide();
    outer->addWidget(m_computeLarge, 0, Qt::AlignLeft);
    connect(m_computeLarge, &QPushButton::clicked, this, [this] {
        if (!m_cache)
            return;
        const core::Trace &trace = m_cache->trace();
        const uint64_t bytes = m_deferredEvents * kBytesPerGpuWorkEvent;
        const std::string path = trace.info.sources.empty() ? std::string("this profile")
                                                             : trace.info.sources.front();
        const auto fits = core::MemoryGuard().admit(path, bytes, "close other programs, or "
                                                                 "open fewer ranks or a shorter "
                                                                 "capture");
        if (!fits) {
            m_status->setText(QString::fromStdString(fits.message()));
            return;
        }
        startCompute(true);
    });
    // Two questions, two tabs: where the GPU's time went, and what to shorten first.
    m_tabs = new QTabWidget(content);
    outer->addWidget(m_tabs, 1);
    auto *scroll = new QScrollArea(m_tabs);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_tabs->addTab(scroll, tr("Breakdown"));
    auto *body = new QWidget(scroll);
    scroll->setWidget(body);
    auto *layout = new QVBoxLayout(body);

    m_temporal = tableModel({tr("Device"), tr("Span (us)"), tr("Idle (us)"), tr("Idle %"),
                             tr("Compute (us)"), tr("Compute %"), tr("Non-compute (us)"),
                             tr("Non-compute %")},
                            {{1, 1}, {2, 1}, {3, 2}, {4, 1}, {5, 2}, {6, 1}, {7, 2}}, this);
    m_views << addTable(layout, body, tr("Temporal breakdown"), m_temporal,
                        tr("From the first to the last GPU activity of each device: idle (no "
                           "activity), compute (computation kernels) and non-compute "
                           "(communication and memory kernels not overlapped by computation)."));
    m_idle = tableModel({tr("Device"), tr("Stream"), tr("Gaps"), tr("Host wait (us)"),
                         tr("Kernel wait (us)"), tr("Other (us)")},
                        {{3, 1}, {4, 1}, {5, 1}}, this);
    m_views << addTable(layout, body, tr("Idle time by cause"), m_idle,
                        tr("Each gap between two activities of a stream: host wait when the "
                           "next launch came after the stream went idle; kernel wait when "
                           "shorter than %1 us; other otherwise (HolisticTraceAnalysis's rules).")
                            .arg(kKernelWaitThresholdUs));
    m_types = tableModel({tr("Kernel type"), tr("Time (us)"), tr("Kernels")}, {{1, 1}}, this);
    m_views << addTable(layout, body, tr("Kernel time by type"), m_types);
    m_views.back()->sortByColumn(1, Qt::DescendingOrder);
    m_names = tableModel({tr("Type"), tr("Kernel"), tr("Count"), tr("Total (us)"), tr("Mean (us)"),
                          tr("Max (us)"), tr("Min (us)"), tr("Std (us)")},
                         {{3, 1}, {4, 1}, {5, 1}, {6, 1}, {7, 1}}, this);
    QTableView *names = addTable(
        layout, body, tr("Kernels by name"), m_names,
        tr("Within each type, the kernels by total time: at most %1 names, those whose running "
           "total stays within the %2 quantile of the running totals (HolisticTraceAnalysis's "
           "rule); the rest are one \"others\" row.")
            .arg(kKernelNamesKept)
            .arg(kKernelNameQuantile));
    names->setTextElideMode(Qt::ElideMiddle);
    giveNameColumnTheRoom(names, 1);
    m_views << names;
    m_launches = tableModel({tr("Kernel"), tr("Launch call"), tr("CPU (us)"), tr("GPU (us)"),
                             tr("Launch delay (us)"), tr("Correlation")},
                            {{2, 1}, {3, 1}, {4, 1}}, this);
    m_launchView = addTable(layout, body, tr("Launch outliers"), m_launches,
                            tr("Launch calls over %1 us or kernels starting over %2 us after "
                               "their launch returned (HolisticTraceAnalysis's cut-offs; a long "
                               "delay behind a deep queue is queueing, see the queue length "
                               "below). At most %3 are listed, the longest delays first to be "
                               "kept; click one to show it on the timeline, or outline all.")
                                .arg(kRuntimeOutlierUs)
                                .arg(kLaunchDelayOutlierUs)
                                .arg(QLocale().toString(qulonglong(kListedLaunchOutliers))));
    m_views << m_launchView;
    giveNameColumnTheRoom(m_launchView, 0);
    m_launchView->setTextElideMode(Qt::ElideMiddle);
    connect(m_launchView, &QTableView::clicked, this, [this](const QModelIndex &index) {
        const auto *proxy = static_cast<const QSortFilterProxyModel *>(index.model());
        const int row = proxy->mapToSource(index).row();
        if (m_report && row >= 0 && size_t(row) < m_report->launches.size())
            emit sliceActivated(m_report->launches[size_t(row)].call);
    });
    m_outline = new QPushButton(tr("Outline all on the timeline"), body);
    m_outline->setEnabled(false);
    layout->addWidget(m_outline, 0, Qt::AlignLeft);
    connect(m_outline, &QPushButton::clicked, this, [this] {
        if (!m_report || !m_cache)
            return;
        auto refs = std::make_shared<std::vector<core::SliceRef>>(m_report->outlierCalls);
        const core::Trace &trace = m_cache->trace();
        emit rangeActivated(trace.begin, trace.end, tr("launch outliers"), std::move(refs));
    });
    m_opKernels = tableModel({tr("Operator"), tr("Kernels launched"), tr("Occurrences"),
                              tr("Op to launch (us)"), tr("Launch to kernel (us)")},
                             {{3, 1}, {4, 1}}, this);
    QTableView *ops = addTable(layout, body, tr("Operators and their kernels"), m_opKernels,
                               tr("Each aten operator with the kernels one call launched; the "
                                  "mean delay from the operator's start to each launch, and from "
                                  "each launch to its kernel's start."),
                               &m_opKernelsCard);
    ops->sortByColumn(2, Qt::DescendingOrder);
    ops->setTextElideMode(Qt::ElideMiddle);
    ops->setColumnWidth(0, 260);
    ops->setColumnWidth(1, 520);
    m_views << ops;
    m_queue = tableModel({tr("Device"), tr("Stream"), tr("Points"), tr("Mean"), tr("Std"),
                          tr("Min"), tr("Median"), tr("Max"), tr("Blocked (us)")},
                         {{3, 2}, {4, 2}, {6, 1}, {8, 1}}, this);
    m_views << addTable(layout, body, tr("Launch queue length"), m_queue, queueNote(false),
                        &m_queueCard, &m_queueNote);
    layout->addStretch(1);
    auto *pathPage = new QWidget(m_tabs);
    auto *pathLayout = new QVBoxLayout(pathPage);
    m_criticalPath = new CriticalPathView(pathPage);
    pathLayout->addWidget(m_criticalPath);
    m_tabs->addTab(pathPage, tr("Critical path"));
    connect(m_criticalPath, &CriticalPathView::sliceActivated, this, &GpuTimePanel::sliceActivated);
    connect(m_criticalPath, &CriticalPathView::scrollRequested, this, &GpuTimePanel::scrollRequested);

    m_otherProfile = new QLabel(tr("No trace loaded."), this);
    m_otherProfile->setWordWrap(true);
    m_otherProfile->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_otherProfile->setContentsMargins(9, 9, 9, 9);
    m_pages = new FrameworkPages(this, m_otherProfile, content,
                                 [this](const core::analysis::AnalysisCachePtr &rank) {
                                     showAnalyses(rank);
                                 });
    m_pages->setPageFor(
        [](const core::Trace &trace) { return core::analysis::hasGpuActivityRoles(trace); });
}

GpuTimePanel::~GpuTimePanel() = default;

void GpuTimePanel::setTimelineState(TimelineState *state)
{
    m_criticalPath->setTimelineState(state);
}

bool GpuTimePanel::isComputing() const
{
    return m_compute.busy() || m_criticalPath->isComputing();
}

QString GpuTimePanel::notApplicableReason(const core::Trace &trace)
{
    if (!core::analysis::hasGpuActivityRoles(trace))
        return tr("GPU Time reads the launches and kernels of a GPU profile (PyTorch, "
                  "TensorFlow or JAX on a GPU, Nsight Systems, rocprofv3); this profile has none.");
    return {};
}

QString GpuTimePanel::statusText() const
{
    return m_status->text();
}

void GpuTimePanel::setAnalyses(core::analysis::AnalysisCachePtr cache)
{
    const core::analysis::AnalysisCachePtr other = m_pages->route(cache);
    if (!other)
        return;
    const QString why = notApplicableReason(other->trace());
    m_status->setText(why);
    m_otherProfile->setText(why);
    emit computed();
}

// One rank's analyses (the whole trace unless it is a merged run), or nullptr to clear.
void GpuTimePanel::showAnalyses(core::analysis::AnalysisCachePtr cache)
{
    m_compute.cancel();
    m_cache = std::move(cache);
    m_report.reset();
    m_outline->setEnabled(false);
    for (AnalysisTableModel *m :
         {m_temporal, m_idle, m_types, m_names, m_launches, m_opKernels, m_queue})
        m->setRows({});
    m_computeLarge->hide();
    if (!m_cache) {
        m_criticalPath->setAnalyses(nullptr);
        m_status->setText(tr("No trace loaded."));
        m_otherProfile->setText(tr("No trace loaded."));
        return;
    }
    startCompute(false);
}

void GpuTimePanel::startCompute(bool confirmed)
{
    m_computeLarge->hide();
    m_tabs->show();
    m_status->setText(tr("Computing..."));
    // The critical path starts once the breakdowns are in: both read the same index, which
    // one of them builds, and the two at once would need its memory twice over.
    m_criticalPath->setAnalyses(nullptr);
    m_compute.start([cache = m_cache, confirmed, askAbove = m_askAboveBytes] {
        Computed out;
        out.events = gpuWorkEvents(cache->trace());
        if (!confirmed && out.events * kBytesPerGpuWorkEvent > askAbove)
            return out;
        const auto index = core::analysis::pytorch::kinetoIndex(*cache);
        out.report = std::make_shared<const GpuTimeReport>(
            gpuTimeReport(cache->trace(), *index, std::nullopt, LaunchDetail::Outliers));
        return out;
    });
}

void GpuTimePanel::showReport(Computed result)
{
    if (!result.report) {
        m_deferredEvents = result.events;
        const uint64_t bytes = result.events * kBytesPerGpuWorkEvent;
        m_status->setText(
            tr("This profile holds %L1 launch calls and GPU activities. Its GPU time breakdown "
               "and critical path would take about %2 of memory and a while to compute (a "
               "minute for 60 million on two cores); %3 are available now.")
                .arg(qulonglong(result.events))
                .arg(QString::fromStdString(core::formatBytes(bytes)))
                .arg(QString::fromStdString(core::formatBytes(core::availableMemoryBytes()))));
        m_computeLarge->show();
        m_tabs->hide(); // nothing to show in them until the user asks
        emit computed();
        return;
    }
    m_criticalPath->setAnalyses(m_cache);
    m_report = std::move(result.report);
    const GpuTimeReport &r = *m_report;
    const core::Trace &trace = m_cache->trace();
    if (r.temporal.empty()) {
        m_status->setText(tr("This profile has no GPU activity: nothing waited."));
        emit computed();
        return;
    }
    double idle = 0, total = 0;
    std::vector<std::vector<QVariant>> rows;
    for (const TemporalBreakdown &t : r.temporal) {
        rows.push_back({qlonglong(t.device), t.totalUs, t.idleUs, t.idlePct(), t.computeUs,
                        t.computePct(), t.nonComputeUs, t.nonComputePct()});
        idle += t.idleUs;
        total += t.totalUs;
    }
    m_temporal->setRows(std::move(rows));
    double host = 0, kernel = 0, other = 0;
    rows.clear();
    for (const IdleBreakdown &i : r.idle) {
        rows.push_back({qlonglong(i.device), qlonglong(i.stream), qlonglong(i.gaps), i.hostWaitUs,
                        i.kernelWaitUs, i.otherUs});
        host += i.hostWaitUs;
        kernel += i.kernelWaitUs;
        other += i.otherUs;
    }
    m_idle->setRows(std::move(rows));
    rows.clear();
    for (const KernelTypeTime &k : r.kernelTypes)
        rows.push_back({text(k.type), k.sumUs, qlonglong(k.count)});
    m_types->setRows(std::move(rows));
    rows.clear();
    for (const KernelNameTime &k : r.kernelNames)
        rows.push_back({text(k.type), text(k.name), qlonglong(k.count), k.sumUs, k.meanUs, k.maxUs,
                        k.minUs, k.stdUs});
    m_names->setRows(std::move(rows));
    rows.clear();
    // The report keeps the listed outliers only (LaunchDetail::Outliers): row i is launch i.
    for (const LaunchStat &l : r.launches) {
        rows.push_back({text(trace.name(l.activity)), text(trace.name(l.call)), l.cpuDurationUs,
                        l.gpuDurationUs, l.launchDelayUs, qlonglong(l.correlation)});
    }
    m_launches->setRows(std::move(rows));
    m_outline->setEnabled(!r.launches.empty());
    rows.clear();
    for (const QueueLength &q : r.queueLength)
        rows.push_back({qlonglong(q.device), qlonglong(q.stream), qlonglong(q.count), q.mean, q.std,
                        qlonglong(q.min), q.p50, qlonglong(q.max), q.blockedUs});
    m_queue->setRows(std::move(rows));
    m_queueNote->setText(queueNote(hasLaunchQueueTracks(m_cache->trace())));
    // Only the queueing calls the rules name fill it (a TensorFlow capture's launches are named
    // after their kernels); an empty table would read as "nothing queued".
    m_queueCard->setVisible(!r.queueLength.empty());
    rows.clear();
    for (const OpKernelSequence &o : r.opKernels) {
        QStringList kernels;
        for (const std::string &k : o.kernels)
            kernels << text(k);
        rows.push_back({text(o.op), kernels.join(QStringLiteral(" → ")),
                        qlonglong(o.occurrences), o.opToLaunchUs, o.launchToKernelUs});
    }
    m_opKernels->setRows(std::move(rows));
    // aten operators exist in PyTorch traces only.
    m_opKernelsCard->setVisible(!r.opKernels.empty());
    for (QTableView *view : m_views)
        fitRows(view);
    // The answer first: how much the GPU idled, and mostly why.
    const double gaps = host + kernel + other;
    QString cause;
    if (gaps > 0) {
        const double top = std::max({host, kernel, other});
        cause = top == host     ? tr("mostly waiting for the host to launch (%1 % of the gaps)")
                : top == kernel ? tr("mostly short gaps between back-to-back kernels (%1 %)")
                                : tr("mostly long gaps with the launch already queued (%1 %)");
        cause = cause.arg(100.0 * top / gaps, 0, 'f', 1);
    }
    const QString scope =
        r.scope.empty() ? QString() : tr("%1: ").arg(QString::fromStdString(r.scope));
    // Several devices: their spans add up to device time, which is not the profile's length.
    const QString idleText =
        (r.temporal.size() > 1
             ? tr("The %1 GPUs were idle %2 % of their active spans (%3 of %4 ms, summed over "
                  "the devices)")
                   .arg(r.temporal.size())
             : tr("The GPU was idle %1 % of its active span (%2 of %3 ms)"))
            .arg(total > 0 ? 100.0 * idle / total : 0.0, 0, 'f', 1)
            .arg(idle / 1000.0, 0, 'f', 2)
            .arg(total / 1000.0, 0, 'f', 2);
    m_status->setText(scope + idleText
                      + tr("%1. %L2 launch outliers of %L3 launches%4.")
                            .arg(cause.isEmpty() ? QString() : QStringLiteral(", ") + cause)
                            .arg(r.outlierCount)
                            .arg(r.launchCount)
                            .arg(qint64(r.launches.size()) < r.outlierCount
                                     ? tr(" (the %L1 with the longest launch delay listed)")
                                           .arg(r.launches.size())
                                     : QString())
                      + outsideSpanText(r, m_cache->trace()));
    emit computed();
}

} // namespace tracedesk::views
