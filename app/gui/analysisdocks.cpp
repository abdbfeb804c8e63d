#include "app/gui/analysisdocks.h"

#include "core/analysis/distributed/runview.h"
#include "core/analysis/framework.h"
#include "core/analysis/opmetrics.h"
#include "core/legacy/legacytools.h"
#include "core/query/search.h"
#include "views/flamegraph/flamegraphpanel.h"
#include "views/panels/distributed/distributedpanel.h"
#include "views/panels/gputime/gputimepanel.h"
#include "views/panels/graphviewer/graphviewerpanel.h"
#include "views/panels/hlostats/hlostatspanel.h"
#include "views/panels/inputpipeline/inputpipelinepanel.h"
#include "views/panels/kernelstats/kernelstatspanel.h"
#include "views/panels/memoryprofile/memoryprofilepanel.h"
#include "views/panels/memoryviewer/memoryviewerpanel.h"
#include "views/panels/opprofile/opprofilepanel.h"
#include "views/panels/opstats/frameworkopstatspanel.h"
#include "views/panels/overview/overviewpanel.h"
#include "views/panels/podviewer/podviewerpanel.h"
#include "views/panels/roofline/rooflinepanel.h"
#include "views/panels/pytorch/frameworkpages.h"
#include "views/panels/pytorch/pytorchoplinks.h"
#include "views/panels/pytorch/rankchoice.h"
#include "views/panels/tfdata/tfdatapanel.h"
#include "views/query/querypanel.h"
#include "views/pivot/pivotpanel.h"
#include "views/timeline/detailspane.h"
#include "views/timeline/timelinewidget.h"

#include <QDockWidget>
#include <QLayout>
#include <QMainWindow>
#include <QMenu>
#include <QScrollArea>
#include <QTabBar>
#include <QTimer>

namespace tracedesk::app {

AnalysisDocks::AnalysisDocks(QMainWindow *window, views::TimelineWidget *timeline)
    : QObject(window)
    , m_window(window)
    , m_timeline(timeline)
    , m_pytorchOps(new views::PyTorchOpLinker(this))
    , m_pytorchRank(new views::PyTorchRankChoice(this))
{
    connect(m_pytorchOps, &views::PyTorchOpLinker::found, this,
            [this](const views::TimelineState::Highlights &found) {
                m_timeline->state()->setHighlights(found);
                if (!found.empty())
                    m_timeline->centreOn(found.refs->front());
            });
    addPanel<views::OverviewPanel>(QStringLiteral("OverviewDock"), tr("Overview"));
    addPanel<views::InputPipelinePanel>(QStringLiteral("InputPipelineDock"),
                                        tr("Input Pipeline"));
    addPanel<views::OpProfilePanel>(QStringLiteral("OpProfileDock"), tr("Op Profile"));
    addPanel<views::FrameworkOpStatsPanel>(QStringLiteral("FrameworkOpStatsDock"),
                                           tr("Framework Op Stats"));
    addPanel<views::KernelStatsPanel>(QStringLiteral("KernelStatsDock"), tr("Kernel Stats"));
    auto *hloStats = addPanel<views::HloStatsPanel>(QStringLiteral("HloStatsDock"),
                                                    tr("HLO Op Stats"));
    auto *roofline = addPanel<views::RooflinePanel>(QStringLiteral("RooflineDock"),
                                                    tr("Roofline Model"));
    auto *graph = addPanel<views::GraphViewerPanel>(QStringLiteral("GraphViewerDock"),
                                                    tr("Graph Viewer"));
    m_graph = graph;
    auto selectInHloStats = [this, hloStats](const QString &op) {
        raiseDock(QStringLiteral("HloStatsDock"));
        hloStats->selectOp(op);
    };
    connect(roofline, &views::RooflinePanel::opSelected, this, selectInHloStats);
    connect(graph, &views::GraphViewerPanel::opSelected, this, selectInHloStats);
    addPanel<views::GpuTimePanel>(QStringLiteral("GpuTimeDock"), tr("GPU Time"));
    addPanel<views::MemoryProfilePanel>(QStringLiteral("MemoryProfileDock"),
                                        tr("Memory Profile"));
    addPanel<views::MemoryViewerPanel>(QStringLiteral("MemoryViewerDock"), tr("Memory Viewer"));
    addPanel<views::PodViewerPanel>(QStringLiteral("PodViewerDock"), tr("Pod Viewer"));
    addPanel<views::TfDataPanel>(QStringLiteral("TfDataDock"), tr("tf.data Bottleneck"));
    addPanel<views::DistributedPanel>(QStringLiteral("DistributedDock"), tr("Distributed"));
    addPanel<views::QueryPanel>(QStringLiteral("QueryDock"), tr("Query"));
    addPanel<views::PivotPanel>(QStringLiteral("PivotDock"), tr("Pivot"));
    addPanel<views::FlameGraphPanel>(QStringLiteral("FlameGraphDock"), tr("Flame Graph"));
    // One tabbed area under the timeline keeps the timeline large; users re-dock at will and
    // the layout is restored from the saved window state.
    for (size_t i = 1; i < m_docks.size(); ++i)
        m_window->tabifyDockWidget(m_docks.front(), m_docks[i]);
    for (views::FrameworkPages *pages : m_window->findChildren<views::FrameworkPages *>())
        pages->setRankChoice(m_pytorchRank);
    m_docks.front()->raise();
}

template<typename Panel>
Panel *AnalysisDocks::addPanel(const QString &objectName, const QString &title)
{
    auto *panel = new Panel;
    auto *dock = new QDockWidget(title, m_window);
    dock->setObjectName(objectName);
    // Scrolled, so a panel's natural size never dictates the window's minimum size.
    auto *scroll = new QScrollArea;
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setWidget(panel);
    dock->setWidget(scroll);
    m_window->addDockWidget(Qt::BottomDockWidgetArea, dock);
    m_docks.push_back(dock);
    std::function<bool()> computing = [] { return false; };
    if constexpr (requires { panel->isComputing(); })
        computing = [panel] { return panel->isComputing(); };
    std::function<QString(const core::Trace &)> reason = [panel](const core::Trace &trace) {
        const auto *pages = panel->template findChild<views::FrameworkPages *>();
        if (pages && core::analysis::isPyTorchTrace(trace)) {
            if (QString why = pages->pytorchReason(); !why.isEmpty())
                return why;
        }
        if constexpr (requires { Panel::notApplicableReason(trace); })
            return Panel::notApplicableReason(trace);
        return QString();
    };
    m_panels.push_back({dock,
                        [panel](const core::analysis::AnalysisCachePtr &cache) {
                            panel->setAnalyses(cache);
                        },
                        std::move(computing), std::move(reason), QString(), nullptr});
    const size_t index = m_panels.size() - 1;
    connect(dock, &QDockWidget::visibilityChanged, this, [this, index](bool visible) {
        if (visible && !m_arranging)
            deliver(m_panels[index], true);
        // The layout rewrites a tab group's tabs when docks move; the hints follow.
        QTimer::singleShot(0, this, &AnalysisDocks::applyTabHints);
    });
    if constexpr (requires { panel->setTimelineState(m_timeline->state()); })
        panel->setTimelineState(m_timeline->state());
    if constexpr (requires { &Panel::opActivated; })
        connect(panel, &Panel::opActivated, this, &AnalysisDocks::showOp);
    if constexpr (requires { &Panel::timeActivated; })
        connect(panel, &Panel::timeActivated, this, &AnalysisDocks::showTime);
    if constexpr (requires { &Panel::hostActivated; })
        connect(panel, &Panel::hostActivated, this, &AnalysisDocks::showHost);
    if constexpr (requires { &Panel::rangeActivated; })
        connect(panel, &Panel::rangeActivated, this, &AnalysisDocks::showRange);
    if constexpr (requires { &Panel::alignRequested; })
        connect(panel, &Panel::alignRequested, this, &AnalysisDocks::alignRequested);
    if constexpr (requires { &Panel::ranksRequested; })
        connect(panel, &Panel::ranksRequested, this, &AnalysisDocks::ranksRequested);
    if constexpr (requires { &Panel::graphRequested; })
        connect(panel, &Panel::graphRequested, this, &AnalysisDocks::showGraph);
    if constexpr (requires { &Panel::sliceActivated; })
        connect(panel, &Panel::sliceActivated, m_timeline, &views::TimelineWidget::revealSlice);
    if constexpr (requires { &Panel::scrollRequested; })
        connect(panel, &Panel::scrollRequested, m_timeline, &views::TimelineWidget::scrollToSlice);
    return panel;
}

bool AnalysisDocks::visiblePanelComputing() const
{
    for (const PanelSlot &slot : m_panels) {
        if (slot.dock->isVisible() && !slot.dock->visibleRegion().isEmpty() && slot.computing())
            return true;
    }
    return false;
}

void AnalysisDocks::setTrace(core::TracePtr trace)
{
    m_pytorchOps->cancel();
    m_cache = trace ? std::make_shared<core::analysis::AnalysisCache>(std::move(trace)) : nullptr;
    // A legacy per-tool run has no events to analyse: its recorded tool outputs are the results.
    // Seeded before any panel asks, so the panels never compute over the empty trace.
    if (m_cache) {
        if (auto seeded = core::legacy::seedFromLegacyRun(*m_cache); !seeded)
            qWarning("%s", seeded.message().c_str());
    }
    // Asked once per profile: the tab hints are applied again at every tab switch.
    for (PanelSlot &p : m_panels)
        p.notApplicable = m_cache ? p.reason(m_cache->trace()) : QString();
    arrangeTabs();
    for (PanelSlot &p : m_panels)
        deliver(p);
}

QString AnalysisDocks::notApplicableReason(const QDockWidget *dock) const
{
    for (const PanelSlot &slot : m_panels) {
        if (slot.dock == dock)
            return slot.notApplicable;
    }
    return {};
}

QTabBar *AnalysisDocks::panelTabBar() const
{
    if (m_docks.empty())
        return nullptr;
    const QString title = m_docks.front()->windowTitle();
    for (QTabBar *bar : m_window->findChildren<QTabBar *>(Qt::FindDirectChildrenOnly)) {
        for (int i = 0; i < bar->count(); ++i) {
            if (bar->tabText(i) == title)
                return bar;
        }
    }
    return nullptr;
}

void AnalysisDocks::arrangeTabs()
{
    if (!m_cache || m_docks.empty())
        return;
    // The tab bar of the group the panels start in; docks the user moved elsewhere stay put.
    QDockWidget *first = m_docks.front();
    QTabBar *bar = panelTabBar();
    if (!bar || first->isFloating() || bar->tabText(0) != first->windowTitle())
        return;
    QStringList shown;
    for (int i = 0; i < bar->count(); ++i)
        shown << bar->tabText(i);
    std::vector<QDockWidget *> order, after;
    for (QDockWidget *dock : m_docks) {
        if (shown.contains(dock->windowTitle()))
            (notApplicableReason(dock).isEmpty() ? order : after).push_back(dock);
    }
    order.insert(order.end(), after.begin(), after.end());
    QStringList wanted;
    for (const QDockWidget *dock : order)
        wanted << dock->windowTitle();
    if (wanted == shown) {
        applyTabHints();
        return;
    }
    // The layout keeps its own order of a group's docks (a tab bar moved by hand is rewritten):
    // each dock is tabified again, in order, which puts it at the end. The docks shown on the
    // way must not start computing, and the layout is applied before any panel is fed.
    const QString current = bar->tabText(bar->currentIndex());
    m_arranging = true;
    QDockWidget *raise = first;
    for (QDockWidget *dock : order) {
        if (dock->windowTitle() == current && notApplicableReason(dock).isEmpty())
            raise = dock;
        if (dock == first)
            continue;
        m_window->removeDockWidget(dock);
        m_window->tabifyDockWidget(first, dock);
        dock->show();
    }
    raise->raise();
    m_window->layout()->activate();
    m_arranging = false;
    applyTabHints();
}

void AnalysisDocks::applyTabHints()
{
    const QColor grey = m_window->palette().color(QPalette::Disabled, QPalette::WindowText);
    for (QTabBar *bar : m_window->findChildren<QTabBar *>(Qt::FindDirectChildrenOnly)) {
        // Many tools, one row of tabs: whole titles in a row that scrolls, never cut to
        // "Ove..." and never claiming the width the docks beside them need.
        bar->setElideMode(Qt::ElideNone);
        bar->setUsesScrollButtons(true);
        for (int i = 0; i < bar->count(); ++i) {
            const QDockWidget *dock = nullptr;
            for (const QDockWidget *d : m_docks) {
                if (d->windowTitle() == bar->tabText(i))
                    dock = d;
            }
            if (!dock)
                continue;
            const QString why = notApplicableReason(dock);
            bar->setTabTextColor(i, why.isEmpty() ? QColor() : grey);
            bar->setTabToolTip(i, why.isEmpty() ? dock->windowTitle() : why);
        }
    }
}

void AnalysisDocks::setRunSource(const QStringList &paths, const core::LoadOptions &options)
{
    auto *distributed = qobject_cast<views::DistributedPanel *>(
        panel(QStringLiteral("DistributedDock")));
    if (!distributed)
        return;
    std::vector<std::string> files;
    for (const QString &p : paths)
        files.push_back(p.toStdString());
    if (files.empty()) {
        distributed->setRunSummarizer({});
        return;
    }
    // Shared by every load of this window: showing other ranks of the same run reuses its
    // summary (the memo checks the files' identity and the step alignment).
    if (!m_runMemo)
        m_runMemo = std::make_shared<core::analysis::distributed::RunSummaryMemo>();
    distributed->setRunSummarizer([files, options, memo = m_runMemo](
                                      const core::Trace &trace,
                                      std::function<void(size_t, size_t)> progress) {
        return core::analysis::distributed::summarizeRunView(trace, files, nullptr, options,
                                                              std::move(progress), memo.get());
    });
}

void AnalysisDocks::showSummaryRun(
    const std::string &runKey,
    std::shared_ptr<const core::analysis::distributed::DistributedSummary> run)
{
    auto *distributed = qobject_cast<views::DistributedPanel *>(
        panel(QStringLiteral("DistributedDock")));
    if (!distributed)
        return;
    if (!m_runMemo)
        m_runMemo = std::make_shared<core::analysis::distributed::RunSummaryMemo>();
    if (!runKey.empty())
        m_runMemo->keep(runKey, run);
    distributed->showRun(std::move(run));
    raiseDock(QStringLiteral("DistributedDock"));
}

void AnalysisDocks::deliver(PanelSlot &p, bool shown)
{
    // A panel hidden behind another tab computes when it is first shown, not at every load: a
    // large profile would otherwise run every analysis at once while the timeline starts up.
    // A dock behind another tab is still "visible"; what it shows of itself says otherwise.
    if (p.given == m_cache
        || (m_cache && !shown && (!p.dock->isVisible() || p.dock->visibleRegion().isEmpty())))
        return;
    p.given = m_cache;
    p.setAnalyses(m_cache);
}

void AnalysisDocks::addToggleActions(QMenu *menu) const
{
    for (QDockWidget *dock : m_docks)
        menu->addAction(dock->toggleViewAction());
}

QWidget *AnalysisDocks::panel(const QString &dockName) const
{
    for (QDockWidget *dock : m_docks) {
        if (dock->objectName() == dockName) {
            auto *scroll = qobject_cast<QScrollArea *>(dock->widget());
            return scroll ? scroll->widget() : dock->widget();
        }
    }
    return nullptr;
}

void AnalysisDocks::showOp(const QString &name)
{
    if (name.isEmpty())
        return;
    // A PyTorch operator launches its kernels through runtime calls, so no name search finds
    // them: the operator tree links them (also a worker's job).
    if (views::isPyTorchTrace(m_cache)) {
        m_pytorchOps->show(m_pytorchRank->analyses(m_cache), name,
                           views::TimelineWidget::kMaxOpOccurrences);
        return;
    }
    // A framework op on a device often appears on the events only through the HLO ops it was
    // compiled into (its name lives in the HLO metadata): look those up in the device op
    // metrics when they are already computed (never compute them on the GUI thread).
    QStringList alsoOps;
    if (m_cache && m_cache->has<core::analysis::OpStats>()) {
        const auto stats = core::analysis::opStats(*m_cache);
        const std::string op = name.toStdString();
        for (const core::analysis::OpMetrics &m : stats->device.metrics) {
            if (m.name != op && core::matchesOp(m.provenance, op))
                alsoOps << QString::fromStdString(m.name);
        }
    }
    m_timeline->showOpOccurrences(name, alsoOps);
}

void AnalysisDocks::showHost(const QString &host)
{
    m_timeline->focusHost(host);
}

void AnalysisDocks::showRange(core::TimePs start, core::TimePs end, const QString &label,
                              std::shared_ptr<const std::vector<core::SliceRef>> refs)
{
    views::TimelineState *state = m_timeline->state();
    state->setWindow(start, std::max(end, start + 1));
    const uint64_t total = refs ? refs->size() : 0;
    state->setHighlights({label, std::move(refs), total, nullptr});
}

void AnalysisDocks::showSelectionAnalysis(views::SelectionAnalysis what)
{
    const bool pivot = what == views::SelectionAnalysis::AreaPivot;
    const QString dockName = pivot ? QStringLiteral("PivotDock") : QStringLiteral("FlameGraphDock");
    raiseDock(dockName);
    if (auto *p = qobject_cast<views::PivotPanel *>(panel(dockName))) {
        p->setSelectionOnly(true);
        return;
    }
    auto *flame = qobject_cast<views::FlameGraphPanel *>(panel(dockName));
    if (!flame)
        return;
    using Scope = views::FlameGraphPanel::Scope;
    flame->setScope(what == views::SelectionAnalysis::AreaFlameGraph    ? Scope::Area
                    : what == views::SelectionAnalysis::TrackFlameGraph ? Scope::Track
                                                                        : Scope::Name);
}

void AnalysisDocks::raiseDock(const QString &dockName)
{
    for (QDockWidget *dock : m_docks) {
        if (dock->objectName() == dockName) {
            dock->show();
            dock->raise();
        }
    }
}

void AnalysisDocks::showGraph(const QString &op, const QString &programId)
{
    if (!m_graph || op.isEmpty())
        return;
    raiseDock(QStringLiteral("GraphViewerDock"));
    m_graph->showOp(op, programId);
}

void AnalysisDocks::showTime(core::TimePs t)
{
    views::TimelineState *state = m_timeline->state();
    const core::TimePs span = state->t1() - state->t0();
    state->setWindow(t - span / 2, t - span / 2 + span);
    state->setMarked({t, t + 1});
}

} // namespace tracedesk::app
