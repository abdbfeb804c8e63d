#include "views/panels/gputime/criticalpathview.h"

#include "core/analysis/gputime/stepwindows.h"
#include "core/analysis/pytorch/kinetoindex.h"
#include "views/common/namecolumn.h"
#include "views/panels/common/rowtable.h"
#include "views/panels/overview/analysistablemodel.h"
#include "views/timeline/timelinestate.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace tracedesk::views {

namespace {

using namespace core::analysis::gputime;

double ms(core::TimePs ps)
{
    return double(ps) / 1e9;
}

QString kindText(const std::string &kind)
{
    if (kind == "cpu")
        return CriticalPathView::tr("CPU");
    if (kind == "gpu")
        return CriticalPathView::tr("GPU");
    if (kind == "launch")
        return CriticalPathView::tr("Launch delay");
    if (kind == "wait")
        return CriticalPathView::tr("Kernel-kernel wait");
    return CriticalPathView::tr("Waits on GPU");
}

// An event's own time (not a launch delay or a wait named after the kernel that waited).
bool isOwnTime(const PathSegment &s)
{
    return s.kind == "cpu" || s.kind == "gpu" || s.kind == "sync";
}

} // namespace

CriticalPathView::CriticalPathView(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *note = new QLabel(
        tr("The longest chain of dependent work in a step: CPU operators one after another on "
           "their thread, each kernel after its launch and after the previous kernel of its "
           "stream, the CPU after the GPU work it synchronised on (HolisticTraceAnalysis's "
           "lightweight critical path). Shortening anything on it shortens the step; anything "
           "off it does not."),
        this);
    note->setWordWrap(true);
    layout->addWidget(note);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Window:"), this));
    m_window = new QComboBox(this);
    m_window->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    top->addWidget(m_window);
    m_show = new QPushButton(tr("Show on the timeline"), this);
    m_show->setEnabled(false);
    top->addWidget(m_show);
    top->addStretch(1);
    layout->addLayout(top);
    connect(m_window, &QComboBox::activated, this, [this](int choice) { compute(choice); });
    connect(m_show, &QPushButton::clicked, this, &CriticalPathView::showOnTimeline);

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    m_segments = new AnalysisTableModel({tr("#"), tr("Kind"), tr("Event"), tr("Starts at (ms)"),
                                         tr("On the path (us)"), tr("% of path"), tr("Bound by")},
                                        this);
    m_segments->setDecimals(3, 3);
    m_segments->setDecimals(4, 1);
    m_segments->setDecimals(5, 2);
    m_view =
        makeRowTable(makeTableProxy(m_segments, AnalysisTableModel::kSortRole, -1, this), this);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->setMinimumHeight(5 * m_view->verticalHeader()->defaultSectionSize());
    m_view->sortByColumn(0, Qt::AscendingOrder); // path order
    m_view->setColumnWidth(0, 60);
    m_view->setColumnWidth(1, 120);
    giveNameColumnTheRoom(m_view, 2);
    // What to shorten first: each event's time on the path, beside the path itself.
    m_byEvent = new AnalysisTableModel(
        {tr("Event"), tr("Kind"), tr("On the path (us)"), tr("% of path"), tr("Segments")}, this);
    m_byEvent->setDecimals(2, 1);
    m_byEvent->setDecimals(3, 2);
    QTableView *byEvent =
        makeRowTable(makeTableProxy(m_byEvent, AnalysisTableModel::kSortRole, -1, this), this);
    byEvent->verticalHeader()->setDefaultSectionSize(
        m_view->verticalHeader()->defaultSectionSize());
    byEvent->setTextElideMode(Qt::ElideMiddle);
    byEvent->sortByColumn(2, Qt::DescendingOrder);
    giveNameColumnTheRoom(byEvent, 0);
    connect(byEvent, &QTableView::clicked, this, [this](const QModelIndex &index) {
        m_name->setCurrentText(index.siblingAtColumn(0).data().toString());
    });
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(byEvent);
    split->addWidget(m_view);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);
    connect(m_view, &QTableView::clicked, this, [this](const QModelIndex &index) {
        const auto *proxy = static_cast<const QSortFilterProxyModel *>(index.model());
        const int row = proxy->mapToSource(index).row();
        if (!m_result || row < 0 || size_t(row) >= m_result->path.segments.size())
            return;
        const PathSegment &s = m_result->path.segments[size_t(row)];
        if (isOwnTime(s))
            m_name->setCurrentText(QString::fromStdString(s.name));
        emit sliceActivated(s.ref);
    });

    auto *whatIf = new QHBoxLayout;
    whatIf->addWidget(new QLabel(tr("What if"), this));
    m_name = new QComboBox(this);
    m_name->setEditable(true);
    m_name->setMinimumContentsLength(40);
    m_name->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_name->setToolTip(tr("An operator (with what runs under it) or a kernel; every event of this "
                          "name in the window"));
    whatIf->addWidget(m_name, 1);
    whatIf->addWidget(new QLabel(tr("were"), this));
    m_factor = new QDoubleSpinBox(this);
    m_factor->setRange(1.01, 1000);
    m_factor->setDecimals(2);
    m_factor->setValue(2);
    m_factor->setSuffix(tr("x faster"));
    whatIf->addWidget(m_factor);
    m_run = new QPushButton(tr("Recompute the path"), this);
    m_run->setEnabled(false);
    whatIf->addWidget(m_run);
    layout->addLayout(whatIf);
    connect(m_run, &QPushButton::clicked, this, &CriticalPathView::runWhatIf);
    m_whatIfLabel = new QLabel(this);
    m_whatIfLabel->setWordWrap(true);
    layout->addWidget(m_whatIfLabel);
}

CriticalPathView::~CriticalPathView() = default;

const CriticalPath *CriticalPathView::path() const
{
    return m_result ? &m_result->path : nullptr;
}

QString CriticalPathView::summaryText() const
{
    return m_summary->text();
}

QString CriticalPathView::whatIfText() const
{
    return m_whatIfLabel->text();
}

void CriticalPathView::setAnalyses(core::analysis::AnalysisCachePtr cache)
{
    m_compute.cancel();
    m_whatIf.cancel();
    m_cache = std::move(cache);
    m_result.reset();
    m_window->clear();
    m_name->clear();
    m_segments->setRows({});
    m_byEvent->setRows({});
    m_show->setEnabled(false);
    m_run->setEnabled(false);
    m_whatIfLabel->clear();
    m_summary->setText(m_cache ? tr("Computing...") : QString());
    if (m_cache)
        compute(-1);
}

void CriticalPathView::compute(int choice)
{
    if (!m_cache)
        return;
    m_whatIf.cancel();
    m_whatIfLabel->clear();
    m_run->setEnabled(false);
    m_summary->setText(tr("Computing..."));
    // The last entry is the timeline's visible range, read now: the user zoomed to it.
    std::optional<TimeWindow> visible;
    if (m_state && choice >= 0 && choice == m_window->count() - 1 && choice > 0)
        visible = TimeWindow{m_state->t0(), m_state->t1(), tr("the visible range").toStdString()};
    m_compute.start([cache = m_cache, choice, visible] {
        auto result = std::make_shared<Result>();
        const auto index = core::analysis::pytorch::kinetoIndex(*cache);
        const core::Trace &trace = cache->trace();
        result->steps = stepWindows(*cache, *index);
        std::optional<TimeWindow> window = visible;
        if (visible) {
            result->choice = int(result->steps.size()) + 1;
        } else {
            result->choice = choice < 0 ? (result->steps.empty() ? 0 : 1) : choice;
            if (result->choice > int(result->steps.size()))
                result->choice = 0;
            if (result->choice > 0)
                window = result->steps[size_t(result->choice - 1)];
        }
        result->graph = std::make_shared<const CriticalPathGraph>(
            buildCriticalPathGraph(trace, *index, window));
        result->path = criticalPath(trace, *result->graph);
        return ResultPtr(std::move(result));
    });
}

void CriticalPathView::showResult(ResultPtr result)
{
    m_result = std::move(result);
    const Result &r = *m_result;
    const CriticalPath &p = r.path;
    const CriticalPathGraph &g = *r.graph;
    const int entries = int(r.steps.size()) + (m_state ? 2 : 1);
    if (m_window->count() != entries) {
        m_window->clear();
        m_window->addItem(tr("Whole trace"));
        for (const TimeWindow &w : r.steps)
            m_window->addItem(QString::fromStdString(w.name));
        if (m_state)
            m_window->addItem(tr("Visible range on the timeline"));
    }
    m_window->setCurrentIndex(r.choice);
    const core::Trace &trace = m_cache->trace();
    std::vector<std::vector<QVariant>> rows;
    std::map<std::string, core::TimePs> byName; // own time on the path, for the what-if list
    for (size_t i = 0; i < p.segments.size(); ++i) {
        const PathSegment &s = p.segments[i];
        rows.push_back({qlonglong(i + 1), kindText(s.kind), QString::fromStdString(s.name),
                        ms(s.start - trace.begin), double(s.weight) / 1e6, p.percentOf(s.weight),
                        QString::fromStdString(s.boundBy)});
        if (isOwnTime(s))
            byName[s.name] += s.weight;
    }
    m_segments->setRows(std::move(rows));
    rows.clear();
    std::vector<std::pair<core::TimePs, std::string>> names;
    for (const auto &[name, time] : byName) {
        names.emplace_back(time, name);
        auto own = [&](const PathSegment &s) { return s.name == name && isOwnTime(s); };
        const auto first = std::find_if(p.segments.begin(), p.segments.end(), own);
        const auto count = std::count_if(p.segments.begin(), p.segments.end(), own);
        rows.push_back({QString::fromStdString(name), kindText(first->kind), double(time) / 1e6,
                        p.percentOf(time), qlonglong(count)});
    }
    m_byEvent->setRows(std::move(rows));
    std::sort(names.rbegin(), names.rend());
    m_name->clear();
    for (size_t i = 0; i < names.size() && i < 50; ++i)
        m_name->addItem(QString::fromStdString(names[i].second));
    const bool found = p.error.empty() && !p.segments.empty();
    m_show->setEnabled(found);
    m_run->setEnabled(found);
    if (!p.error.empty()) {
        m_summary->setText(tr("No critical path: %1.").arg(QString::fromStdString(p.error)));
    } else if (p.segments.empty()) {
        m_summary->setText(tr("%1 has no operators, launches or kernels to follow.")
                               .arg(QString::fromStdString(g.window.name)));
    } else {
        QString text =
            tr("%1: the critical path is %2 ms of the window's %3 ms. CPU %4 %, GPU %5 %, launch "
               "delay %6 %, kernel-kernel wait %7 %")
                .arg(QString::fromStdString(g.window.name))
                .arg(ms(p.length), 0, 'f', 3)
                .arg(ms(g.window.end - g.window.start), 0, 'f', 3)
                .arg(p.percentOf(p.cpu), 0, 'f', 1)
                .arg(p.percentOf(p.gpu), 0, 'f', 1)
                .arg(p.percentOf(p.launch), 0, 'f', 1)
                .arg(p.percentOf(p.wait), 0, 'f', 1);
        if (p.sync > 0)
            text += tr(", blocked on the GPU %1 %").arg(p.percentOf(p.sync), 0, 'f', 1);
        text += QStringLiteral(".");
        if (!g.syncEvents)
            text += tr(" The trace recorded no CUDA synchronisation events, so a call that waited "
                       "for the GPU keeps its time as \"blocked on GPU\": the GPU work it waited "
                       "for cannot be told apart.");
        m_summary->setText(text);
    }
    emit computed();
}

void CriticalPathView::runWhatIf()
{
    if (!m_result || !m_cache || m_name->currentText().isEmpty())
        return;
    const SpeedUp speedUp{m_name->currentText().toStdString(), m_factor->value()};
    m_whatIfLabel->setText(tr("Recomputing..."));
    m_whatIf.start([cache = m_cache, graph = m_result->graph, speedUp] {
        return std::make_shared<const CriticalPath>(
            criticalPath(cache->trace(), *graph, {speedUp}));
    });
}

void CriticalPathView::showWhatIf(PathPtr path)
{
    if (!m_result)
        return;
    const core::TimePs before = m_result->path.length;
    if (path->affectedEvents == 0) {
        m_whatIfLabel->setText(tr("Nothing named %1 in this window.").arg(m_name->currentText()));
    } else {
        m_whatIfLabel->setText(
            tr("With %1 %2x faster (%3 events): the path is %4 ms instead of %5 ms (%6 ms, %7 %).")
                .arg(m_name->currentText())
                .arg(m_factor->value())
                .arg(path->affectedEvents)
                .arg(ms(path->length), 0, 'f', 3)
                .arg(ms(before), 0, 'f', 3)
                .arg(ms(path->length - before), 0, 'f', 3)
                .arg(before > 0 ? 100.0 * double(path->length - before) / double(before) : 0.0, 0,
                     'f', 1));
    }
    emit whatIfComputed();
}

void CriticalPathView::showOnTimeline()
{
    if (!m_result || !m_state)
        return;
    const CriticalPath &p = m_result->path;
    auto refs =
        std::make_shared<const std::vector<core::SliceRef>>(pathSlices(*m_result->graph, p));
    auto links = std::make_shared<const std::vector<core::Flow>>(pathHops(*m_result->graph, p));
    const TimeWindow &w = m_result->graph->window;
    m_state->setWindow(w.start, std::max(w.end, w.start + 1));
    m_state->setHighlights({tr("critical path of %1").arg(QString::fromStdString(w.name)), refs,
                            refs->size(), std::move(links)});
    if (!p.segments.empty())
        emit scrollRequested(p.segments.front().ref);
}

} // namespace tracedesk::views
